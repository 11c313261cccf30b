//! The trace's objects made real: memory (with a memory type chosen by its properties),
//! buffers and images bound at the trace's offsets (refused where the device needs another
//! alignment), compute pipelines from SPIR-V with layouts derived from the shader's bindings
//! (the graphics objects are made in [`crate::graphics`]), events, semaphores, fences and
//! command pools. Everything is named after its trace id through `VK_EXT_debug_utils`, so the
//! layer's messages name them.

use std::collections::{BTreeMap, HashMap};

use ash::vk;
use sim_core::api::{Command, MemoryProperties, Workload};
use sim_shader::BindingKind;

use crate::device::Session;
use crate::error::{ReplayError, VkContext};

/// A memory object.
pub(crate) struct Memory {
    pub(crate) memory: vk::DeviceMemory,
    /// Host address of its mapping (HOST_VISIBLE types stay mapped for the whole replay).
    pub(crate) ptr: Option<*mut u8>,
    /// Whether its type is HOST_COHERENT.
    pub(crate) coherent: bool,
    /// A buffer over all of it, for zeroing and reading back through copies.
    pub(crate) whole: vk::Buffer,
    /// Its size in the trace.
    pub(crate) size: u64,
}

/// A compute or graphics pipeline with its layouts.
pub(crate) struct Pipeline {
    pub(crate) pipeline: vk::Pipeline,
    pub(crate) layout: vk::PipelineLayout,
    /// One layout per set index from 0 to the highest the shaders use.
    pub(crate) set_layouts: Vec<vk::DescriptorSetLayout>,
    /// (set, binding) -> descriptor type.
    pub(crate) bindings: BTreeMap<(u32, u32), vk::DescriptorType>,
    /// (set, binding) -> whether the shaders declare an array image there (image bindings only).
    pub(crate) arrayed: BTreeMap<(u32, u32), bool>,
    /// The stages whose shaders declare push constants (what vkCmdPushConstants names).
    pub(crate) push_stages: vk::ShaderStageFlags,
    /// Bytes of the push-constant range.
    pub(crate) push_size: u32,
    pub(crate) modules: Vec<vk::ShaderModule>,
}

impl Pipeline {
    /// A pipeline with no Vulkan objects yet: they are filled in as they are made, so that Drop
    /// frees what exists when a later one fails.
    pub(crate) fn empty(bindings: BTreeMap<(u32, u32), vk::DescriptorType>, arrayed: BTreeMap<(u32, u32), bool>) -> Pipeline {
        Pipeline {
            pipeline: vk::Pipeline::null(),
            layout: vk::PipelineLayout::null(),
            set_layouts: Vec::new(),
            bindings,
            arrayed,
            push_stages: vk::ShaderStageFlags::empty(),
            push_size: 0,
            modules: Vec::new(),
        }
    }
}

/// The descriptor type of a shader binding.
pub(crate) fn descriptor_type(kind: BindingKind) -> vk::DescriptorType {
    match kind {
        BindingKind::UniformBuffer => vk::DescriptorType::UNIFORM_BUFFER,
        BindingKind::StorageBuffer { .. } => vk::DescriptorType::STORAGE_BUFFER,
        BindingKind::SampledImage { .. } => vk::DescriptorType::SAMPLED_IMAGE,
        BindingKind::StorageImage { .. } => vk::DescriptorType::STORAGE_IMAGE,
        BindingKind::Sampler => vk::DescriptorType::SAMPLER,
    }
}

/// Whether an image binding is an array image (`None` for buffers and samplers).
pub(crate) fn arrayed(kind: BindingKind) -> Option<bool> {
    match kind {
        BindingKind::SampledImage { arrayed, .. } | BindingKind::StorageImage { arrayed, .. } => Some(arrayed),
        _ => None,
    }
}

/// An image view a dispatch binds: its image, first level, levels, first layer and layers, and
/// whether it is an array view.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct ViewKey {
    pub(crate) image: usize,
    pub(crate) range: [u32; 4],
    pub(crate) arrayed: bool,
}

impl ViewKey {
    /// The view descriptor `desc` of a dispatch or draw with pipeline `p` binds (none for a
    /// sampler): an array view where the shaders declare an array image (or, for a binding they
    /// do not use, where the view has several layers).
    pub(crate) fn of(p: &Pipeline, desc: &sim_core::api::ImageDescriptor) -> Option<ViewKey> {
        let image = desc.image?;
        let arrayed = p.arrayed.get(&(desc.set, desc.binding)).copied().unwrap_or(desc.range.layer_count > 1);
        Some(ViewKey { image, range: [desc.range.base_mip_level, desc.range.level_count, desc.range.base_array_layer, desc.range.layer_count], arrayed })
    }
}

/// A host-visible buffer that device-local memory is zeroed from and read back into.
pub(crate) struct Staging {
    pub(crate) buffer: vk::Buffer,
    pub(crate) memory: vk::DeviceMemory,
    pub(crate) ptr: *mut u8,
    pub(crate) coherent: bool,
    pub(crate) size: u64,
}

/// Every Vulkan object of one replay; destroyed on drop.
pub(crate) struct Objects<'s> {
    pub(crate) s: &'s Session,
    pub(crate) memories: Vec<Memory>,
    pub(crate) buffers: Vec<vk::Buffer>,
    /// The trace's images, bound at their offsets.
    pub(crate) images: Vec<vk::Image>,
    /// The trace's samplers.
    pub(crate) samplers: Vec<vk::Sampler>,
    /// One view per image, subresources and arrayness dispatches and draws bind.
    pub(crate) views: HashMap<ViewKey, vk::ImageView>,
    pub(crate) pipelines: Vec<Pipeline>,
    /// The trace's render passes.
    pub(crate) render_passes: Vec<vk::RenderPass>,
    /// The trace's framebuffers.
    pub(crate) framebuffers: Vec<vk::Framebuffer>,
    /// The trace's graphics pipelines.
    pub(crate) graphics_pipelines: Vec<Pipeline>,
    /// One view per attachment view that framebuffers and vkCmdBeginRendering name.
    pub(crate) attachment_views: HashMap<AttachmentKey, vk::ImageView>,
    pub(crate) events: Vec<vk::Event>,
    pub(crate) semaphores: Vec<vk::Semaphore>,
    pub(crate) fences: Vec<vk::Fence>,
    pub(crate) command_pools: HashMap<u32, vk::CommandPool>,
    pub(crate) descriptor_pool: vk::DescriptorPool,
    pub(crate) staging: Option<Staging>,
}

fn properties(p: &MemoryProperties) -> vk::MemoryPropertyFlags {
    let mut f = vk::MemoryPropertyFlags::empty();
    if p.device_local {
        f |= vk::MemoryPropertyFlags::DEVICE_LOCAL;
    }
    if p.host_visible {
        f |= vk::MemoryPropertyFlags::HOST_VISIBLE;
    }
    if p.host_coherent {
        f |= vk::MemoryPropertyFlags::HOST_COHERENT;
    }
    if p.host_cached {
        f |= vk::MemoryPropertyFlags::HOST_CACHED;
    }
    f
}

/// `DEVICE_LOCAL|HOST_VISIBLE`, as the trace format writes properties.
pub(crate) fn flag_names(f: vk::MemoryPropertyFlags) -> String {
    let names = [
        (vk::MemoryPropertyFlags::DEVICE_LOCAL, "DEVICE_LOCAL"),
        (vk::MemoryPropertyFlags::HOST_VISIBLE, "HOST_VISIBLE"),
        (vk::MemoryPropertyFlags::HOST_COHERENT, "HOST_COHERENT"),
        (vk::MemoryPropertyFlags::HOST_CACHED, "HOST_CACHED"),
        (vk::MemoryPropertyFlags::LAZILY_ALLOCATED, "LAZILY_ALLOCATED"),
        (vk::MemoryPropertyFlags::PROTECTED, "PROTECTED"),
    ];
    let v: Vec<&str> = names.iter().filter(|(b, _)| f.contains(*b)).map(|(_, n)| *n).collect();
    if v.is_empty() { "no properties".into() } else { v.join("|") }
}

const BUFFER_USAGE: vk::BufferUsageFlags = vk::BufferUsageFlags::from_raw(
    vk::BufferUsageFlags::STORAGE_BUFFER.as_raw() | vk::BufferUsageFlags::UNIFORM_BUFFER.as_raw() | vk::BufferUsageFlags::TRANSFER_SRC.as_raw() | vk::BufferUsageFlags::TRANSFER_DST.as_raw(),
);

impl<'s> Objects<'s> {
    /// Creates every object of `w` on `s`.
    pub(crate) fn new(s: &'s Session, w: &Workload, notes: &mut Vec<String>) -> Result<Objects<'s>, ReplayError> {
        let mut o = Objects {
            s,
            memories: Vec::new(),
            buffers: Vec::new(),
            images: Vec::new(),
            samplers: Vec::new(),
            views: HashMap::new(),
            pipelines: Vec::new(),
            render_passes: Vec::new(),
            framebuffers: Vec::new(),
            graphics_pipelines: Vec::new(),
            attachment_views: HashMap::new(),
            events: Vec::new(),
            semaphores: Vec::new(),
            fences: Vec::new(),
            command_pools: HashMap::new(),
            descriptor_pool: vk::DescriptorPool::null(),
            staging: None,
        };
        o.make_memory(w, notes)?;
        o.make_pipelines(w)?;
        o.make_render_passes(w)?;
        o.make_attachment_views(w)?;
        o.make_framebuffers(w)?;
        o.make_graphics_pipelines(w)?;
        o.make_views(w)?;
        o.make_descriptor_pool(w)?;
        o.make_sync(w)?;
        Ok(o)
    }

    fn buffer(&self, size: u64, usage: vk::BufferUsageFlags, name: &str) -> Result<vk::Buffer, ReplayError> {
        // Traces have no queue family ownership transfers: with queues of several families in
        // use, buffers are shared by all of them (CONCURRENT), or their contents would be
        // undefined on the other families.
        let mut families: Vec<u32> = self.s.queues.iter().map(|q| q.1).collect();
        families.sort_unstable();
        families.dedup();
        let info = vk::BufferCreateInfo::default().size(size).usage(usage);
        let info = if families.len() > 1 { info.sharing_mode(vk::SharingMode::CONCURRENT).queue_family_indices(&families) } else { info.sharing_mode(vk::SharingMode::EXCLUSIVE) };
        // SAFETY: valid create info; the buffer is destroyed in Drop.
        let b = unsafe { self.s.device.create_buffer(&info, None) }.call_at("vkCreateBuffer", name)?;
        self.s.name(b, name);
        Ok(b)
    }

    fn make_memory(&mut self, w: &Workload, notes: &mut Vec<String>) -> Result<(), ReplayError> {
        let d = &self.s.device;
        self.buffers = vec![vk::Buffer::null(); w.buffers.len()];
        self.images = vec![vk::Image::null(); w.images.len()];
        let mut staging_size = 0u64;
        let graphics_usage = buffer_usages(w);
        // (asked properties, type chosen) -> memory objects: one note for each.
        let mut extra_properties: BTreeMap<(u32, u32), Vec<String>> = BTreeMap::new();
        for (m, desc) in w.memories.iter().enumerate() {
            let at = format!("memory[{}]", desc.name);
            let wanted = properties(&desc.properties);
            let whole = self.buffer(desc.size, vk::BufferUsageFlags::TRANSFER_SRC | vk::BufferUsageFlags::TRANSFER_DST, &format!("{}.whole", desc.name))?;
            // Push it at once so that Drop destroys it on any error below.
            self.memories.push(Memory { memory: vk::DeviceMemory::null(), ptr: None, coherent: false, whole, size: desc.size });
            // SAFETY: plain query of a live buffer.
            let req = unsafe { d.get_buffer_memory_requirements(whole) };
            let (mut allowed, mut end) = (req.memory_type_bits, req.size);
            let mut bound = Vec::new();
            for (b, bd) in w.buffers.iter().enumerate().filter(|(_, b)| b.memory == m) {
                let buf = self.buffer(bd.size, BUFFER_USAGE | graphics_usage[b], &bd.name)?;
                self.buffers[b] = buf;
                // SAFETY: as above.
                let r = unsafe { d.get_buffer_memory_requirements(buf) };
                if bd.offset % r.alignment != 0 {
                    return Err(ReplayError::Unsupported {
                        at: format!("buffers[{}].offset", bd.name),
                        message: format!("offset {} is not a multiple of {}, the alignment this device requires of the buffer's memory offset", bd.offset, r.alignment),
                    });
                }
                allowed &= r.memory_type_bits;
                end = end.max(bd.offset + r.size);
                bound.push((buf, bd.offset));
            }
            let mut bound_images = Vec::new();
            for (i, im) in w.images.iter().enumerate().filter(|(_, im)| im.memory == m) {
                let iat = format!("images[{}]", im.name);
                // SAFETY: a valid create info (the loader checked the image as Vulkan does); the
                // image is destroyed in Drop.
                let image = unsafe { d.create_image(&crate::images::create_info(im), None) }.call_at("vkCreateImage", &iat)?;
                self.images[i] = image;
                self.s.name(image, &im.name);
                // SAFETY: plain query of a live image.
                let r = unsafe { d.get_image_memory_requirements(image) };
                if im.offset % r.alignment.max(1) != 0 {
                    return Err(ReplayError::Unsupported {
                        at: format!("{iat}.offset"),
                        message: format!("offset {} is not a multiple of {}, the alignment this device requires of the image's memory offset", im.offset, r.alignment),
                    });
                }
                allowed &= r.memory_type_bits;
                end = end.max(im.offset + r.size);
                bound_images.push((image, im.offset));
            }
            let Some(t) = self.s.memory_type(allowed, wanted) else {
                let types: Vec<String> = (0..self.s.memory.memory_type_count).map(|i| format!("{i}: {}", flag_names(self.s.memory_type_flags(i)))).collect();
                return Err(ReplayError::Unsupported {
                    at,
                    message: format!("the device has no memory type with {} that its buffers can be bound to (its types: {})", flag_names(wanted), types.join("; ")),
                });
            };
            let flags = self.s.memory_type_flags(t);
            if flags != wanted {
                extra_properties.entry((wanted.as_raw(), t)).or_default().push(format!("`{}`", desc.name));
            }
            let info = vk::MemoryAllocateInfo::default().allocation_size(end).memory_type_index(t);
            // SAFETY: valid allocate info; freed in Drop.
            let memory = unsafe { d.allocate_memory(&info, None) }.call_at("vkAllocateMemory", &at)?;
            self.s.name(memory, &desc.name);
            self.memories[m].memory = memory;
            self.memories[m].coherent = flags.contains(vk::MemoryPropertyFlags::HOST_COHERENT);
            // SAFETY: both buffers and memory are live; offsets were checked above.
            unsafe { d.bind_buffer_memory(whole, memory, 0) }.call_at("vkBindBufferMemory", &at)?;
            for (buf, offset) in bound {
                unsafe { d.bind_buffer_memory(buf, memory, offset) }.call_at("vkBindBufferMemory", &at)?;
            }
            for (image, offset) in bound_images {
                // SAFETY: a live image and memory; the offset's alignment was checked above.
                unsafe { d.bind_image_memory(image, memory, offset) }.call_at("vkBindImageMemory", &at)?;
            }
            if flags.contains(vk::MemoryPropertyFlags::HOST_VISIBLE) {
                // SAFETY: host-visible memory, mapped once and unmapped when freed.
                let ptr = unsafe { d.map_memory(memory, 0, vk::WHOLE_SIZE, vk::MemoryMapFlags::empty()) }.call_at("vkMapMemory", &at)?;
                self.memories[m].ptr = Some(ptr as *mut u8);
            } else {
                staging_size = staging_size.max(desc.size);
            }
        }
        for ((wanted, t), names) in extra_properties {
            let wanted = vk::MemoryPropertyFlags::from_raw(wanted);
            let extra = self.s.memory_type_flags(t) & !wanted;
            let (who, verb) = if names.len() == 1 { ("memory", "asks") } else { ("memories", "ask") };
            let mut note = format!("{who} {} {verb} for {}; the device's memory type {t} also has {}", names.join(", "), flag_names(wanted), flag_names(extra));
            if wanted.contains(vk::MemoryPropertyFlags::HOST_VISIBLE) && extra.contains(vk::MemoryPropertyFlags::HOST_COHERENT) {
                note.push_str(" (so a missing flush or invalidate cannot show on this device)");
            }
            notes.push(note);
        }
        if staging_size > 0 {
            self.make_staging(staging_size)?;
        }
        Ok(())
    }

    fn make_staging(&mut self, size: u64) -> Result<(), ReplayError> {
        let d = &self.s.device;
        let buffer = self.buffer(size, vk::BufferUsageFlags::TRANSFER_SRC | vk::BufferUsageFlags::TRANSFER_DST, "gpusim.staging")?;
        // SAFETY: plain query.
        let req = unsafe { d.get_buffer_memory_requirements(buffer) };
        let t = self
            .s
            .memory_type(req.memory_type_bits, vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_CACHED)
            .or_else(|| self.s.memory_type(req.memory_type_bits, vk::MemoryPropertyFlags::HOST_VISIBLE));
        let Some(t) = t else {
            // SAFETY: not used.
            unsafe { d.destroy_buffer(buffer, None) };
            return Err(ReplayError::Unsupported { at: "memory".into(), message: "the device has no HOST_VISIBLE memory to read device-local memory back through".into() });
        };
        let info = vk::MemoryAllocateInfo::default().allocation_size(req.size).memory_type_index(t);
        // SAFETY: valid allocate info.
        let memory = match unsafe { d.allocate_memory(&info, None) } {
            Ok(m) => m,
            Err(e) => {
                unsafe { d.destroy_buffer(buffer, None) };
                return Err(ReplayError::Vulkan { call: "vkAllocateMemory", result: e, at: Some("staging memory".into()) });
            }
        };
        self.staging = Some(Staging { buffer, memory, ptr: std::ptr::null_mut(), coherent: self.s.memory_type_flags(t).contains(vk::MemoryPropertyFlags::HOST_COHERENT), size });
        // SAFETY: fresh objects.
        unsafe { d.bind_buffer_memory(buffer, memory, 0) }.call("vkBindBufferMemory")?;
        let ptr = unsafe { d.map_memory(memory, 0, vk::WHOLE_SIZE, vk::MemoryMapFlags::empty()) }.call("vkMapMemory")?;
        if let Some(st) = &mut self.staging {
            st.ptr = ptr as *mut u8;
        }
        Ok(())
    }

    /// The samplers, and a view for every image, subresources and arrayness a dispatch binds
    /// (made once, however many dispatches bind it).
    fn make_views(&mut self, w: &Workload) -> Result<(), ReplayError> {
        let d = &self.s.device;
        for sm in &w.samplers {
            let info = crate::images::sampler_info(&sm.sampler);
            // SAFETY: valid create info.
            let handle = unsafe { d.create_sampler(&info, None) }.call_at("vkCreateSampler", format!("samplers[{}]", sm.name))?;
            self.s.name(handle, &sm.name);
            self.samplers.push(handle);
        }
        for cb in &w.command_buffers {
            for c in &cb.commands {
                let (p, images) = match c {
                    Command::Dispatch { pipeline, images, .. } => (&self.pipelines[*pipeline], images),
                    Command::Draw { pipeline, images, .. } => (&self.graphics_pipelines[*pipeline], images),
                    _ => continue,
                };
                for desc in images {
                    let Some(key) = ViewKey::of(p, desc) else { continue };
                    if self.views.contains_key(&key) {
                        continue;
                    }
                    let image = key.image;
                    let im = &w.images[image];
                    let info = crate::images::view_info(im, self.images[image], &desc.range, key.arrayed);
                    // SAFETY: valid create info on a bound image.
                    let view = unsafe { d.create_image_view(&info, None) }.call_at("vkCreateImageView", format!("{}: a view of image `{}`", cb.name, im.name))?;
                    self.views.insert(key, view);
                }
            }
        }
        Ok(())
    }

    fn make_pipelines(&mut self, w: &Workload) -> Result<(), ReplayError> {
        let d = &self.s.device;
        let l = &self.s.limits;
        // Which pipelines a dispatch with a base workgroup uses (they need DISPATCH_BASE).
        let mut base = vec![false; w.pipelines.len()];
        for cb in &w.command_buffers {
            for c in &cb.commands {
                if let Command::Dispatch { pipeline, base_group, .. } = c
                    && base_group.iter().any(|&b| b != 0)
                {
                    base[*pipeline] = true;
                }
            }
        }
        for (i, (name, p)) in w.pipelines.iter().enumerate() {
            let at = format!("shaders[{name}]");
            let size = p.workgroup_size();
            if (0..3).any(|k| size[k] > l.max_compute_work_group_size[k]) || p.invocations_per_workgroup() > l.max_compute_work_group_invocations {
                return Err(ReplayError::Unsupported {
                    at,
                    message: format!(
                        "workgroup size {size:?} exceeds the device's maxComputeWorkGroupSize {:?} or maxComputeWorkGroupInvocations {}",
                        l.max_compute_work_group_size, l.max_compute_work_group_invocations
                    ),
                });
            }
            if p.push_constant_size() > l.max_push_constants_size {
                return Err(ReplayError::Unsupported { at, message: format!("{} bytes of push constants exceed the device's maxPushConstantsSize {}", p.push_constant_size(), l.max_push_constants_size) });
            }
            if p.workgroup_memory_bytes() > l.max_compute_shared_memory_size {
                return Err(ReplayError::Unsupported { at, message: format!("{} bytes of workgroup memory exceed the device's maxComputeSharedMemorySize {}", p.workgroup_memory_bytes(), l.max_compute_shared_memory_size) });
            }
            let words = p.spirv().map_err(|e| ReplayError::Unsupported { at: at.clone(), message: e.to_string() })?;
            let mut bindings = BTreeMap::new();
            let mut arrays = BTreeMap::new();
            for b in p.bindings() {
                bindings.insert((b.group, b.binding), descriptor_type(b.kind));
                if let Some(a) = arrayed(b.kind) {
                    arrays.insert((b.group, b.binding), a);
                }
            }
            // Push first, fill in as objects are made, so Drop frees what exists on an error.
            self.pipelines.push(Pipeline::empty(bindings, arrays));
            let info = vk::ShaderModuleCreateInfo::default().code(&words);
            // SAFETY: the words are a validated module (naga's output or a parsed binary).
            let module = unsafe { d.create_shader_module(&info, None) }.call_at("vkCreateShaderModule", &at)?;
            self.s.name(module, name);
            self.pipelines[i].modules.push(module);
            let stages: Vec<((u32, u32), vk::ShaderStageFlags)> = self.pipelines[i].bindings.keys().map(|&k| (k, vk::ShaderStageFlags::COMPUTE)).collect();
            self.make_layout(i, false, &stages, vk::ShaderStageFlags::COMPUTE, p.push_constant_size(), &at)?;
            let layout = self.pipelines[i].layout;
            let entry = std::ffi::CString::new(p.entry_point()).map_err(|_| ReplayError::Unsupported { at: at.clone(), message: "the entry point's name has a NUL byte".into() })?;
            let stage = vk::PipelineShaderStageCreateInfo::default().stage(vk::ShaderStageFlags::COMPUTE).module(module).name(&entry);
            let flags = if base[i] { vk::PipelineCreateFlags::DISPATCH_BASE } else { vk::PipelineCreateFlags::empty() };
            let info = vk::ComputePipelineCreateInfo::default().stage(stage).layout(layout).flags(flags);
            // SAFETY: valid create info.
            let pipeline = unsafe { d.create_compute_pipelines(vk::PipelineCache::null(), &[info], None) }.map_err(|(_, e)| e).call_at("vkCreateComputePipelines", &at)?;
            self.pipelines[i].pipeline = pipeline[0];
            self.s.name(pipeline[0], name);
        }
        Ok(())
    }

    /// The descriptor set layouts and pipeline layout of pipeline `i` (a graphics pipeline when
    /// `graphics`): each (set, binding) visible to `stages`, one set layout per set index up to
    /// the highest, and a push-constant range of `push_size` bytes for `push_stages`.
    pub(crate) fn make_layout(&mut self, i: usize, graphics: bool, stages: &[((u32, u32), vk::ShaderStageFlags)], push_stages: vk::ShaderStageFlags, push_size: u32, at: &str) -> Result<(), ReplayError> {
        let d = &self.s.device;
        let list = if graphics { &mut self.graphics_pipelines } else { &mut self.pipelines };
        let p = &mut list[i];
        let set_count = p.bindings.keys().map(|&(s, _)| s + 1).max().unwrap_or(0);
        for set in 0..set_count {
            let lb: Vec<vk::DescriptorSetLayoutBinding> = p
                .bindings
                .iter()
                .filter(|((s, _), _)| *s == set)
                .map(|(&(s, b), &ty)| {
                    let flags = stages.iter().filter(|(k, _)| *k == (s, b)).fold(vk::ShaderStageFlags::empty(), |f, (_, st)| f | *st);
                    vk::DescriptorSetLayoutBinding::default().binding(b).descriptor_type(ty).descriptor_count(1).stage_flags(flags)
                })
                .collect();
            let info = vk::DescriptorSetLayoutCreateInfo::default().bindings(&lb);
            // SAFETY: valid create info.
            let sl = unsafe { d.create_descriptor_set_layout(&info, None) }.call_at("vkCreateDescriptorSetLayout", at)?;
            p.set_layouts.push(sl);
        }
        let ranges = [vk::PushConstantRange { stage_flags: push_stages, offset: 0, size: push_size }];
        let mut info = vk::PipelineLayoutCreateInfo::default().set_layouts(&p.set_layouts);
        if push_size > 0 {
            info = info.push_constant_ranges(&ranges);
            p.push_stages = push_stages;
            p.push_size = push_size;
        }
        // SAFETY: valid create info.
        p.layout = unsafe { d.create_pipeline_layout(&info, None) }.call_at("vkCreatePipelineLayout", at)?;
        Ok(())
    }

    /// The descriptor pool every dispatch's and draw's sets come from: each recording of a
    /// command buffer (one per queue family it is submitted to) allocates fresh sets for each
    /// dispatch and draw that binds any.
    fn make_descriptor_pool(&mut self, w: &Workload) -> Result<(), ReplayError> {
        let families = self.s.queues.iter().map(|q| q.1).collect::<std::collections::BTreeSet<_>>().len() as u32;
        let mut counts: BTreeMap<i32, u32> = BTreeMap::new();
        let mut sets = 0u32;
        for cb in &w.command_buffers {
            for c in &cb.commands {
                let p = match c {
                    Command::Dispatch { pipeline, .. } => &self.pipelines[*pipeline],
                    Command::Draw { pipeline, .. } => &self.graphics_pipelines[*pipeline],
                    _ => continue,
                };
                for ty in p.bindings.values() {
                    *counts.entry(ty.as_raw()).or_default() += families;
                }
                sets += families * p.set_layouts.len() as u32;
            }
        }
        if sets == 0 {
            return Ok(());
        }
        let sizes: Vec<vk::DescriptorPoolSize> = counts.into_iter().map(|(ty, n)| vk::DescriptorPoolSize { ty: vk::DescriptorType::from_raw(ty), descriptor_count: n }).collect();
        let info = vk::DescriptorPoolCreateInfo::default().max_sets(sets).pool_sizes(&sizes);
        // SAFETY: valid create info.
        self.descriptor_pool = unsafe { self.s.device.create_descriptor_pool(&info, None) }.call("vkCreateDescriptorPool")?;
        Ok(())
    }

    fn make_sync(&mut self, w: &Workload) -> Result<(), ReplayError> {
        let d = &self.s.device;
        for name in &w.events {
            // SAFETY: valid create infos; destroyed in Drop.
            let e = unsafe { d.create_event(&vk::EventCreateInfo::default(), None) }.call_at("vkCreateEvent", format!("events[{name}]"))?;
            self.s.name(e, name);
            self.events.push(e);
        }
        for name in &w.semaphores {
            let s = unsafe { d.create_semaphore(&vk::SemaphoreCreateInfo::default(), None) }.call_at("vkCreateSemaphore", format!("semaphores[{name}]"))?;
            self.s.name(s, name);
            self.semaphores.push(s);
        }
        for name in &w.fences {
            let f = unsafe { d.create_fence(&vk::FenceCreateInfo::default(), None) }.call_at("vkCreateFence", format!("fences[{name}]"))?;
            self.s.name(f, name);
            self.fences.push(f);
        }
        for &(_, family) in &self.s.queues {
            if let std::collections::hash_map::Entry::Vacant(v) = self.command_pools.entry(family) {
                let info = vk::CommandPoolCreateInfo::default().queue_family_index(family);
                let pool = unsafe { d.create_command_pool(&info, None) }.call("vkCreateCommandPool")?;
                v.insert(pool);
            }
        }
        for (q, name) in w.queues.iter().enumerate() {
            self.s.name(self.s.queues[q].0, name);
        }
        Ok(())
    }

    /// Replaces the semaphores with fresh ones (an iteration may leave a binary semaphore
    /// signalled).
    pub(crate) fn renew_semaphores(&mut self, w: &Workload) -> Result<(), ReplayError> {
        let d = &self.s.device;
        for (i, name) in w.semaphores.iter().enumerate() {
            // SAFETY: the device is idle between iterations.
            unsafe { d.destroy_semaphore(self.semaphores[i], None) };
            self.semaphores[i] = vk::Semaphore::null();
            let s = unsafe { d.create_semaphore(&vk::SemaphoreCreateInfo::default(), None) }.call_at("vkCreateSemaphore", format!("semaphores[{name}]"))?;
            self.s.name(s, name);
            self.semaphores[i] = s;
        }
        Ok(())
    }
}

impl Drop for Objects<'_> {
    fn drop(&mut self) {
        let d = &self.s.device;
        // SAFETY: the device is idle; every handle was made here (null ones are ignored by
        // Vulkan's destroy functions).
        unsafe {
            let _ = d.device_wait_idle();
            for (_, pool) in self.command_pools.drain() {
                d.destroy_command_pool(pool, None);
            }
            if self.descriptor_pool != vk::DescriptorPool::null() {
                d.destroy_descriptor_pool(self.descriptor_pool, None);
            }
            for (_, v) in self.views.drain() {
                d.destroy_image_view(v, None);
            }
            for sm in self.samplers.drain(..) {
                d.destroy_sampler(sm, None);
            }
            for fb in self.framebuffers.drain(..) {
                d.destroy_framebuffer(fb, None);
            }
            for (_, v) in self.attachment_views.drain() {
                d.destroy_image_view(v, None);
            }
            for p in self.pipelines.drain(..).chain(self.graphics_pipelines.drain(..)) {
                d.destroy_pipeline(p.pipeline, None);
                d.destroy_pipeline_layout(p.layout, None);
                for sl in p.set_layouts {
                    d.destroy_descriptor_set_layout(sl, None);
                }
                for m in p.modules {
                    d.destroy_shader_module(m, None);
                }
            }
            for rp in self.render_passes.drain(..) {
                d.destroy_render_pass(rp, None);
            }
            for e in self.events.drain(..) {
                d.destroy_event(e, None);
            }
            for s in self.semaphores.drain(..) {
                d.destroy_semaphore(s, None);
            }
            for f in self.fences.drain(..) {
                d.destroy_fence(f, None);
            }
            for b in self.buffers.drain(..) {
                d.destroy_buffer(b, None);
            }
            for i in self.images.drain(..) {
                d.destroy_image(i, None);
            }
            for m in self.memories.drain(..) {
                d.destroy_buffer(m.whole, None);
                if m.memory != vk::DeviceMemory::null() {
                    d.free_memory(m.memory, None);
                }
            }
            if let Some(st) = self.staging.take() {
                d.destroy_buffer(st.buffer, None);
                d.free_memory(st.memory, None);
            }
        }
    }
}

/// The buffer usages each buffer needs beyond the storage, uniform and transfer ones every
/// buffer has: VERTEX_BUFFER, INDEX_BUFFER and INDIRECT_BUFFER where a command uses it so.
pub(crate) fn buffer_usages(w: &Workload) -> Vec<vk::BufferUsageFlags> {
    let mut u = vec![vk::BufferUsageFlags::empty(); w.buffers.len()];
    let mut add = |b: usize, f: vk::BufferUsageFlags| {
        if let Some(x) = u.get_mut(b) {
            *x |= f;
        }
    };
    for c in w.command_buffers.iter().flat_map(|cb| &cb.commands) {
        match c {
            Command::BindVertexBuffers { buffers, .. } => buffers.iter().for_each(|&(b, _)| add(b, vk::BufferUsageFlags::VERTEX_BUFFER)),
            Command::BindIndexBuffer { buffer, .. } => add(*buffer, vk::BufferUsageFlags::INDEX_BUFFER),
            Command::Draw { kind: sim_core::api::DrawKind::Indirect { buffer, .. }, .. } => add(*buffer, vk::BufferUsageFlags::INDIRECT_BUFFER),
            _ => {}
        }
    }
    u
}

/// The key of an attachment view: image, level, first layer, layers.
pub(crate) type AttachmentKey = (usize, u32, u32, u32);

pub(crate) fn attachment_key(v: &sim_core::api::AttachmentView) -> AttachmentKey {
    (v.image, v.level, v.base_layer, v.layer_count)
}
