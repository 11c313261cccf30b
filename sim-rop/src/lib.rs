//! Images without Vulkan: what the ROPs and the texture path need to know about texels, and
//! nothing about the API.
//!
//! - [`mod@format`]: the texel formats (sizes, aspects and planes; clear values encoded, texels
//!   decoded for comparison).
//! - [`layout`]: linear and optimal (8x8-texel tile) placement of planes, levels and layers; the
//!   address and tile slot of a texel; the byte ranges of a subresource range; Vulkan's valid
//!   usage of an image description.
//! - [`codec`]: framebuffer compression of one tile (fast-clear values, 2:1, 4:1, 8:1 or raw),
//!   lossless, the compressed bytes in the first part of the slot and the rest left as it was.
//! - [`level`]: compression metadata per page or per image, and the [`level::Codec`] level that
//!   encodes on write and decodes on read, under a ROP tile cache (an ordinary `sim-caches`
//!   cache whose lines are tile slots) or in front of a reader that understands the metadata.
//! - [`fragment`]: per-fragment operations as pure functions: depth and stencil tests, stencil
//!   operations, blending, colour write masks.
//! - [`sampler`]: the texture unit's arithmetic as pure functions: the LOD and mip levels of a
//!   sample, its texels and weights after wrapping (its [`sampler::Footprint`]), and the filter
//!   that combines the decoded texels into the words a shader reads.

pub mod codec;
pub mod format;
pub mod fragment;
pub mod layout;
pub mod level;
pub mod sampler;

pub use codec::{Encoded, MAX_CLEAR_VALUES, TileState};
pub use format::{Aspect, ClearValue, Format, Texel};
pub use layout::{ImageDesc, ImageError, ImageLayout, ImageType, SubresourceRange, Tiling, TilingParams};
pub use level::{Codec, Metadata, MetadataError, TileInfo};
pub use sampler::{AddressMode, BorderColor, Filter, Footprint, MipmapMode, Sampler, Tap, blit_footprint, filter};
