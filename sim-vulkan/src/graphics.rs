//! The graphics half of a workload on the device: render passes (vkCreateRenderPass2, their
//! dependencies in the synchronization2 shape where the device has it), framebuffers and the
//! views of their attachments, graphics pipelines (viewport and scissor dynamic), and the
//! recording of render pass instances, dynamic rendering, bindings and draws.
//!
//! # Design
//! Viewport and scissor are dynamic in every pipeline and set before each draw: the trace's
//! latest `set_viewport` / `set_scissor` in the command buffer, else the render area of the
//! render pass instance being recorded (the trace contract), so a pipeline never depends on
//! the framebuffer it is used with. Descriptor sets and push constants are made as for a
//! dispatch ([`crate::descriptors::bind_descriptors`]), each binding visible to the stages whose
//! shaders declare it.
//!
//! Where the engine does not run graphics commands yet, a workload that has them is checked
//! here (every id it names, [`check`]) and by the engine's own checks on a stand-in whose
//! graphics commands are barriers ([`stand_in`]), and is replayed with no reference run to
//! compare with.

use std::collections::BTreeMap;
use std::ffi::CString;

use ash::vk;
use sim_core::api::{
    AttachmentView, ClearAttachment, Command, DrawKind, GraphicsPipelineDesc, LoadOp, PipelineTarget, RenderingAttachment, StoreOp, SubpassRef, Workload,
};
use sim_core::fixed_function as ff;
use sim_rop::fragment::{BlendFactor, BlendOp, BlendState, CompareOp, StencilOp, StencilState};
use sim_rop::{Aspect, ClearValue, Format};

use crate::device::GraphicsFeatures;
use crate::error::{ReplayError, VkContext};
use crate::objects::{Objects, Pipeline, arrayed, attachment_key as key, descriptor_type};



/// Bytes of push constants a graphics pipeline's shaders declare (the larger stage's block).
fn push_size(gp: &GraphicsPipelineDesc) -> u32 {
    gp.vertex.push_constant_size().max(gp.fragment.as_ref().map_or(0, |f| f.push_constant_size()))
}


// ---------------------------------------------------------------------------------------------
// Vulkan's values of the trace's
// ---------------------------------------------------------------------------------------------

fn unsupported(at: &str, message: impl Into<String>) -> ReplayError {
    ReplayError::Unsupported { at: at.to_string(), message: message.into() }
}

fn load_op(op: LoadOp, f: &GraphicsFeatures, at: &str) -> Result<vk::AttachmentLoadOp, ReplayError> {
    Ok(match op {
        LoadOp::Load => vk::AttachmentLoadOp::LOAD,
        LoadOp::Clear => vk::AttachmentLoadOp::CLEAR,
        LoadOp::DontCare => vk::AttachmentLoadOp::DONT_CARE,
        LoadOp::None if f.load_op_none => vk::AttachmentLoadOp::NONE_EXT,
        LoadOp::None => return Err(unsupported(at, "load operation NONE needs VK_EXT_load_store_op_none, which the device does not have")),
    })
}

fn store_op(op: StoreOp, f: &GraphicsFeatures, at: &str) -> Result<vk::AttachmentStoreOp, ReplayError> {
    Ok(match op {
        StoreOp::Store => vk::AttachmentStoreOp::STORE,
        StoreOp::DontCare => vk::AttachmentStoreOp::DONT_CARE,
        StoreOp::None if f.store_op_none => vk::AttachmentStoreOp::NONE,
        StoreOp::None => return Err(unsupported(at, "store operation NONE needs Vulkan 1.3 or VK_EXT_load_store_op_none, which the device does not have")),
    })
}

fn compare_op(c: CompareOp) -> vk::CompareOp {
    match c {
        CompareOp::Never => vk::CompareOp::NEVER,
        CompareOp::Less => vk::CompareOp::LESS,
        CompareOp::Equal => vk::CompareOp::EQUAL,
        CompareOp::LessOrEqual => vk::CompareOp::LESS_OR_EQUAL,
        CompareOp::Greater => vk::CompareOp::GREATER,
        CompareOp::NotEqual => vk::CompareOp::NOT_EQUAL,
        CompareOp::GreaterOrEqual => vk::CompareOp::GREATER_OR_EQUAL,
        CompareOp::Always => vk::CompareOp::ALWAYS,
    }
}

fn stencil_op(o: StencilOp) -> vk::StencilOp {
    match o {
        StencilOp::Keep => vk::StencilOp::KEEP,
        StencilOp::Zero => vk::StencilOp::ZERO,
        StencilOp::Replace => vk::StencilOp::REPLACE,
        StencilOp::IncrementAndClamp => vk::StencilOp::INCREMENT_AND_CLAMP,
        StencilOp::DecrementAndClamp => vk::StencilOp::DECREMENT_AND_CLAMP,
        StencilOp::Invert => vk::StencilOp::INVERT,
        StencilOp::IncrementAndWrap => vk::StencilOp::INCREMENT_AND_WRAP,
        StencilOp::DecrementAndWrap => vk::StencilOp::DECREMENT_AND_WRAP,
    }
}

fn stencil_state(s: &StencilState) -> vk::StencilOpState {
    vk::StencilOpState {
        fail_op: stencil_op(s.fail_op),
        pass_op: stencil_op(s.pass_op),
        depth_fail_op: stencil_op(s.depth_fail_op),
        compare_op: compare_op(s.compare_op),
        compare_mask: u32::from(s.compare_mask),
        write_mask: u32::from(s.write_mask),
        reference: u32::from(s.reference),
    }
}

fn blend_factor(f: BlendFactor) -> vk::BlendFactor {
    match f {
        BlendFactor::Zero => vk::BlendFactor::ZERO,
        BlendFactor::One => vk::BlendFactor::ONE,
        BlendFactor::SrcColor => vk::BlendFactor::SRC_COLOR,
        BlendFactor::OneMinusSrcColor => vk::BlendFactor::ONE_MINUS_SRC_COLOR,
        BlendFactor::DstColor => vk::BlendFactor::DST_COLOR,
        BlendFactor::OneMinusDstColor => vk::BlendFactor::ONE_MINUS_DST_COLOR,
        BlendFactor::SrcAlpha => vk::BlendFactor::SRC_ALPHA,
        BlendFactor::OneMinusSrcAlpha => vk::BlendFactor::ONE_MINUS_SRC_ALPHA,
        BlendFactor::DstAlpha => vk::BlendFactor::DST_ALPHA,
        BlendFactor::OneMinusDstAlpha => vk::BlendFactor::ONE_MINUS_DST_ALPHA,
        BlendFactor::ConstantColor => vk::BlendFactor::CONSTANT_COLOR,
        BlendFactor::OneMinusConstantColor => vk::BlendFactor::ONE_MINUS_CONSTANT_COLOR,
        BlendFactor::ConstantAlpha => vk::BlendFactor::CONSTANT_ALPHA,
        BlendFactor::OneMinusConstantAlpha => vk::BlendFactor::ONE_MINUS_CONSTANT_ALPHA,
        BlendFactor::SrcAlphaSaturate => vk::BlendFactor::SRC_ALPHA_SATURATE,
    }
}

fn blend_op(o: BlendOp) -> vk::BlendOp {
    match o {
        BlendOp::Add => vk::BlendOp::ADD,
        BlendOp::Subtract => vk::BlendOp::SUBTRACT,
        BlendOp::ReverseSubtract => vk::BlendOp::REVERSE_SUBTRACT,
        BlendOp::Min => vk::BlendOp::MIN,
        BlendOp::Max => vk::BlendOp::MAX,
    }
}

fn blend_attachment(b: &BlendState) -> vk::PipelineColorBlendAttachmentState {
    vk::PipelineColorBlendAttachmentState {
        blend_enable: b.enable.into(),
        src_color_blend_factor: blend_factor(b.src_color),
        dst_color_blend_factor: blend_factor(b.dst_color),
        color_blend_op: blend_op(b.color_op),
        src_alpha_blend_factor: blend_factor(b.src_alpha),
        dst_alpha_blend_factor: blend_factor(b.dst_alpha),
        alpha_blend_op: blend_op(b.alpha_op),
        color_write_mask: vk::ColorComponentFlags::from_raw(u32::from(b.write_mask & 0xf)),
    }
}

fn topology(t: ff::PrimitiveTopology) -> vk::PrimitiveTopology {
    match t {
        ff::PrimitiveTopology::PointList => vk::PrimitiveTopology::POINT_LIST,
        ff::PrimitiveTopology::LineList => vk::PrimitiveTopology::LINE_LIST,
        ff::PrimitiveTopology::TriangleList => vk::PrimitiveTopology::TRIANGLE_LIST,
        ff::PrimitiveTopology::TriangleStrip => vk::PrimitiveTopology::TRIANGLE_STRIP,
        ff::PrimitiveTopology::TriangleFan => vk::PrimitiveTopology::TRIANGLE_FAN,
    }
}

fn cull_mode(c: ff::CullMode) -> vk::CullModeFlags {
    match c {
        ff::CullMode::None => vk::CullModeFlags::NONE,
        ff::CullMode::Front => vk::CullModeFlags::FRONT,
        ff::CullMode::Back => vk::CullModeFlags::BACK,
        ff::CullMode::FrontAndBack => vk::CullModeFlags::FRONT_AND_BACK,
    }
}

fn front_face(f: ff::FrontFace) -> vk::FrontFace {
    match f {
        ff::FrontFace::CounterClockwise => vk::FrontFace::COUNTER_CLOCKWISE,
        ff::FrontFace::Clockwise => vk::FrontFace::CLOCKWISE,
    }
}

/// Every aspect of a format (what an attachment's view and an input attachment cover).
fn aspects(f: Format) -> vk::ImageAspectFlags {
    f.aspects().iter().fold(vk::ImageAspectFlags::empty(), |m, a| {
        m | match a {
            Aspect::Color => vk::ImageAspectFlags::COLOR,
            Aspect::Depth => vk::ImageAspectFlags::DEPTH,
            Aspect::Stencil => vk::ImageAspectFlags::STENCIL,
        }
    })
}

fn clear_value(v: &ClearValue) -> vk::ClearValue {
    match *v {
        ClearValue::Float(f) => vk::ClearValue { color: vk::ClearColorValue { float32: f } },
        ClearValue::Uint(u) => vk::ClearValue { color: vk::ClearColorValue { uint32: u } },
        ClearValue::Int(i) => vk::ClearValue { color: vk::ClearColorValue { int32: i } },
        ClearValue::DepthStencil { depth, stencil } => vk::ClearValue { depth_stencil: vk::ClearDepthStencilValue { depth, stencil } },
    }
}

fn rect(r: &ff::Rect2D) -> vk::Rect2D {
    vk::Rect2D { offset: vk::Offset2D { x: r.x, y: r.y }, extent: vk::Extent2D { width: r.width, height: r.height } }
}

fn index_type(t: ff::IndexType) -> vk::IndexType {
    match t {
        ff::IndexType::Uint16 => vk::IndexType::UINT16,
        ff::IndexType::Uint32 => vk::IndexType::UINT32,
    }
}


// ---------------------------------------------------------------------------------------------
// Objects
// ---------------------------------------------------------------------------------------------

impl Objects<'_> {
    /// The trace's render passes, through vkCreateRenderPass2.
    pub(crate) fn make_render_passes(&mut self, w: &Workload) -> Result<(), ReplayError> {
        let d = &self.s.device;
        let f = self.s.features;
        for rp in &w.render_passes {
            let at = format!("render_passes[{}]", rp.name);
            let mut attachments = Vec::new();
            for (i, a) in rp.attachments.iter().enumerate() {
                let aat = format!("{at}.attachments[{i}]");
                if a.samples != 1 {
                    return Err(unsupported(&aat, format!("{} samples: multisampled attachments are not replayed yet", a.samples)));
                }
                attachments.push(
                    vk::AttachmentDescription2::default()
                        .format(crate::images::format(a.format))
                        .samples(vk::SampleCountFlags::TYPE_1)
                        .load_op(load_op(a.load_op, &f, &aat)?)
                        .store_op(store_op(a.store_op, &f, &aat)?)
                        .stencil_load_op(load_op(a.stencil_load_op, &f, &aat)?)
                        .stencil_store_op(store_op(a.stencil_store_op, &f, &aat)?)
                        .initial_layout(crate::images::layout(&a.initial_layout, &aat)?)
                        .final_layout(crate::images::layout(&a.final_layout, &aat)?),
                );
            }
            // The references of every subpass, kept alive until the create call.
            let reference = |r: &Option<sim_core::api::AttachmentReference>, input: bool| -> Result<vk::AttachmentReference2<'static>, ReplayError> {
                Ok(match r {
                    None => vk::AttachmentReference2::default().attachment(vk::ATTACHMENT_UNUSED).layout(vk::ImageLayout::UNDEFINED),
                    Some(r) => {
                        // Input attachments name the aspects the shader reads; other references none.
                        let mask = if input { aspects(rp.attachments[r.attachment as usize].format) } else { vk::ImageAspectFlags::empty() };
                        vk::AttachmentReference2::default().attachment(r.attachment).layout(crate::images::layout(&r.layout, &at)?).aspect_mask(mask)
                    }
                })
            };
            let mut colours = Vec::new();
            let mut inputs = Vec::new();
            let mut depths = Vec::new();
            for sp in &rp.subpasses {
                colours.push(sp.color_attachments.iter().map(|r| reference(r, false)).collect::<Result<Vec<_>, _>>()?);
                inputs.push(sp.input_attachments.iter().map(|r| reference(r, true)).collect::<Result<Vec<_>, _>>()?);
                depths.push(sp.depth_stencil_attachment.as_ref().map(|r| reference(&Some(r.clone()), false)).transpose()?);
            }
            let subpasses: Vec<vk::SubpassDescription2> = rp
                .subpasses
                .iter()
                .enumerate()
                .map(|(s, sp)| {
                    let mut d = vk::SubpassDescription2::default()
                        .pipeline_bind_point(vk::PipelineBindPoint::GRAPHICS)
                        .color_attachments(&colours[s])
                        .input_attachments(&inputs[s])
                        .preserve_attachments(&sp.preserve_attachments);
                    if let Some(z) = &depths[s] {
                        d = d.depth_stencil_attachment(z);
                    }
                    d
                })
                .collect();
            let subpass = |s: SubpassRef| match s {
                SubpassRef::External => vk::SUBPASS_EXTERNAL,
                SubpassRef::Index(i) => i,
            };
            // With synchronization2 the masks go in a VkMemoryBarrier2 chained to each
            // dependency (its 32-bit masks are then ignored), so that every stage and access the
            // trace names reaches the driver; without it, the 32-bit masks.
            let mut barriers: Vec<vk::MemoryBarrier2> = rp
                .dependencies
                .iter()
                .map(|dep| {
                    vk::MemoryBarrier2::default()
                        .src_stage_mask(vk::PipelineStageFlags2::from_raw(dep.src_stage_mask.bits()))
                        .src_access_mask(vk::AccessFlags2::from_raw(dep.src_access_mask.bits()))
                        .dst_stage_mask(vk::PipelineStageFlags2::from_raw(dep.dst_stage_mask.bits()))
                        .dst_access_mask(vk::AccessFlags2::from_raw(dep.dst_access_mask.bits()))
                })
                .collect();
            let mut dependencies = Vec::new();
            for (i, (dep, barrier)) in rp.dependencies.iter().zip(barriers.iter_mut()).enumerate() {
                let flags = if dep.by_region { vk::DependencyFlags::BY_REGION } else { vk::DependencyFlags::empty() };
                let dd = vk::SubpassDependency2::default().src_subpass(subpass(dep.src_subpass)).dst_subpass(subpass(dep.dst_subpass)).dependency_flags(flags);
                if self.s.sync2 {
                    dependencies.push(dd.push_next(barrier));
                    continue;
                }
                let wide = [dep.src_stage_mask.bits(), dep.dst_stage_mask.bits(), dep.src_access_mask.bits(), dep.dst_access_mask.bits()];
                if wide.iter().any(|m| m >> 32 != 0) {
                    return Err(unsupported(&format!("{at}.dependencies[{i}]"), "its masks need synchronization2, which the device does not support"));
                }
                // Synchronization1 has no empty stage mask: the empty first scope is
                // TOP_OF_PIPE, the empty second BOTTOM_OF_PIPE.
                let src = vk::PipelineStageFlags::from_raw(wide[0] as u32);
                let dst = vk::PipelineStageFlags::from_raw(wide[1] as u32);
                dependencies.push(
                    dd.src_stage_mask(if src.is_empty() { vk::PipelineStageFlags::TOP_OF_PIPE } else { src })
                        .dst_stage_mask(if dst.is_empty() { vk::PipelineStageFlags::BOTTOM_OF_PIPE } else { dst })
                        .src_access_mask(vk::AccessFlags::from_raw(wide[2] as u32))
                        .dst_access_mask(vk::AccessFlags::from_raw(wide[3] as u32)),
                );
            }
            let info = vk::RenderPassCreateInfo2::default().attachments(&attachments).subpasses(&subpasses).dependencies(&dependencies);
            // SAFETY: every array in `info` outlives the call.
            let handle = unsafe { d.create_render_pass2(&info, None) }.call_at("vkCreateRenderPass2", &at)?;
            self.s.name(handle, &rp.name);
            self.render_passes.push(handle);
        }
        Ok(())
    }

    /// A view for every attachment view a framebuffer or a vkCmdBeginRendering names (made once
    /// for each image, level and layers): every aspect of the image's format, 2D (an array
    /// view for several layers).
    pub(crate) fn make_attachment_views(&mut self, w: &Workload) -> Result<(), ReplayError> {
        let mut wanted: Vec<(AttachmentView, String)> = Vec::new();
        for fb in &w.framebuffers {
            wanted.extend(fb.attachments.iter().map(|v| (*v, format!("framebuffers[{}]", fb.name))));
        }
        for cb in &w.command_buffers {
            for (k, c) in cb.commands.iter().enumerate() {
                if let Command::BeginRendering(info) = c {
                    let all = info.color_attachments.iter().flatten().chain(&info.depth_attachment).chain(&info.stencil_attachment);
                    wanted.extend(all.map(|a: &RenderingAttachment| (a.view, format!("command_buffers[{}].commands[{k}]", cb.name))));
                }
            }
        }
        for (v, at) in wanted {
            if self.attachment_views.contains_key(&key(&v)) {
                continue;
            }
            let im = &w.images[v.image];
            let format = im.layout.desc.format;
            let range = vk::ImageSubresourceRange { aspect_mask: aspects(format), base_mip_level: v.level, level_count: 1, base_array_layer: v.base_layer, layer_count: v.layer_count };
            let view_type = if v.layer_count > 1 { vk::ImageViewType::TYPE_2D_ARRAY } else { vk::ImageViewType::TYPE_2D };
            let info = vk::ImageViewCreateInfo::default().image(self.images[v.image]).view_type(view_type).format(crate::images::format(format)).subresource_range(range);
            // SAFETY: valid create info on a bound image.
            let view = unsafe { self.s.device.create_image_view(&info, None) }.call_at("vkCreateImageView", format!("{at}: a view of image `{}`", im.name))?;
            self.attachment_views.insert(key(&v), view);
        }
        Ok(())
    }

    /// The trace's framebuffers, over the attachment views.
    pub(crate) fn make_framebuffers(&mut self, w: &Workload) -> Result<(), ReplayError> {
        for fb in &w.framebuffers {
            let views: Vec<vk::ImageView> = fb.attachments.iter().map(|v| self.attachment_views[&key(v)]).collect();
            let info = vk::FramebufferCreateInfo::default().render_pass(self.render_passes[fb.render_pass]).attachments(&views).width(fb.width).height(fb.height).layers(fb.layers);
            // SAFETY: valid create info; the views and render pass are live.
            let handle = unsafe { self.s.device.create_framebuffer(&info, None) }.call_at("vkCreateFramebuffer", format!("framebuffers[{}]", fb.name))?;
            self.s.name(handle, &fb.name);
            self.framebuffers.push(handle);
        }
        Ok(())
    }

    /// The trace's graphics pipelines: shader modules from the shaders' SPIR-V, layouts from
    /// both stages' bindings, viewport and scissor dynamic.
    pub(crate) fn make_graphics_pipelines(&mut self, w: &Workload) -> Result<(), ReplayError> {
        let f = self.s.features;
        for (i, gp) in w.graphics_pipelines.iter().enumerate() {
            let at = format!("pipelines[{}]", gp.name);
            let mut shaders = vec![(&*gp.vertex, vk::ShaderStageFlags::VERTEX)];
            if let Some(fs) = &gp.fragment {
                shaders.push((&**fs, vk::ShaderStageFlags::FRAGMENT));
            }
            let mut bindings = BTreeMap::new();
            let mut arrays = BTreeMap::new();
            let mut stages = Vec::new();
            let mut push_stages = vk::ShaderStageFlags::empty();
            for &(sh, stage) in &shaders {
                for b in sh.bindings() {
                    bindings.insert((b.group, b.binding), descriptor_type(b.kind));
                    if let Some(a) = arrayed(b.kind) {
                        arrays.insert((b.group, b.binding), a);
                    }
                    stages.push(((b.group, b.binding), stage));
                }
                if sh.push_constant_size() > 0 {
                    push_stages |= stage;
                }
            }
            let push = push_size(gp);
            if push > self.s.limits.max_push_constants_size {
                return Err(unsupported(&at, format!("{push} bytes of push constants exceed the device's maxPushConstantsSize {}", self.s.limits.max_push_constants_size)));
            }
            // Push first, fill in as objects are made, so Drop frees what exists on an error.
            self.graphics_pipelines.push(Pipeline::empty(bindings, arrays));
            let mut entries = Vec::new();
            for &(sh, stage) in &shaders {
                let sat = format!("{at}: shader `{}`", sh.module_name());
                let words = sh.spirv().map_err(|e| unsupported(&sat, e.to_string()))?;
                let info = vk::ShaderModuleCreateInfo::default().code(&words);
                // SAFETY: the words are a validated module (naga's output or a parsed binary).
                let module = unsafe { self.s.device.create_shader_module(&info, None) }.call_at("vkCreateShaderModule", &sat)?;
                self.s.name(module, sh.module_name());
                self.graphics_pipelines[i].modules.push(module);
                let entry = CString::new(sh.entry_point()).map_err(|_| unsupported(&sat, "the entry point's name has a NUL byte"))?;
                entries.push((module, stage, entry));
            }
            self.make_layout(i, true, &stages, push_stages, push, &at)?;
            let stage_infos: Vec<vk::PipelineShaderStageCreateInfo> = entries.iter().map(|(m, s, e)| vk::PipelineShaderStageCreateInfo::default().stage(*s).module(*m).name(e)).collect();
            let vb: Vec<vk::VertexInputBindingDescription> = gp
                .vertex_input
                .bindings()
                .iter()
                .map(|b| vk::VertexInputBindingDescription {
                    binding: b.binding,
                    stride: b.stride,
                    input_rate: if b.input_rate == ff::VertexInputRate::Instance { vk::VertexInputRate::INSTANCE } else { vk::VertexInputRate::VERTEX },
                })
                .collect();
            let va: Vec<vk::VertexInputAttributeDescription> = gp
                .vertex_input
                .attributes()
                .iter()
                .map(|a| vk::VertexInputAttributeDescription { location: a.location, binding: a.binding, format: crate::images::format(a.format), offset: a.offset })
                .collect();
            let vertex_input = vk::PipelineVertexInputStateCreateInfo::default().vertex_binding_descriptions(&vb).vertex_attribute_descriptions(&va);
            let assembly = vk::PipelineInputAssemblyStateCreateInfo::default().topology(topology(gp.topology));
            let viewport = vk::PipelineViewportStateCreateInfo::default().viewport_count(1).scissor_count(1);
            let raster = vk::PipelineRasterizationStateCreateInfo::default()
                .polygon_mode(vk::PolygonMode::FILL)
                .cull_mode(cull_mode(gp.raster.cull_mode))
                .front_face(front_face(gp.raster.front_face))
                .line_width(1.0);
            let multisample = vk::PipelineMultisampleStateCreateInfo::default().rasterization_samples(vk::SampleCountFlags::TYPE_1);
            let ds = &gp.depth_stencil;
            let depth_stencil = vk::PipelineDepthStencilStateCreateInfo::default()
                .depth_test_enable(ds.depth_test)
                .depth_write_enable(ds.depth_write)
                .depth_compare_op(compare_op(ds.depth_compare))
                .stencil_test_enable(ds.stencil_test)
                .front(stencil_state(&ds.front))
                .back(stencil_state(&ds.back))
                .min_depth_bounds(0.0)
                .max_depth_bounds(1.0);
            // One blend state per colour attachment the target has; missing ones write every
            // channel unblended (the trace format's default).
            let colour_count = match &gp.target {
                PipelineTarget::RenderPass { render_pass, subpass } => w.render_passes[*render_pass].subpasses[*subpass as usize].color_attachments.len(),
                PipelineTarget::Rendering { color_formats, .. } => color_formats.len(),
            };
            let states: Vec<BlendState> = (0..colour_count).map(|k| gp.blend.get(k).copied().unwrap_or(BlendState::REPLACE)).collect();
            let blends: Vec<vk::PipelineColorBlendAttachmentState> = states.iter().map(blend_attachment).collect();
            if !f.independent_blend && states.windows(2).any(|p| p[0] != p[1]) {
                return Err(unsupported(&at, "its colour attachments blend differently, which needs independentBlend, which the device does not support"));
            }
            let blend = vk::PipelineColorBlendStateCreateInfo::default().attachments(&blends).blend_constants(gp.blend_constants);
            let dynamic_states = [vk::DynamicState::VIEWPORT, vk::DynamicState::SCISSOR];
            let dynamic = vk::PipelineDynamicStateCreateInfo::default().dynamic_states(&dynamic_states);
            let mut info = vk::GraphicsPipelineCreateInfo::default()
                .stages(&stage_infos)
                .vertex_input_state(&vertex_input)
                .input_assembly_state(&assembly)
                .viewport_state(&viewport)
                .rasterization_state(&raster)
                .multisample_state(&multisample)
                .depth_stencil_state(&depth_stencil)
                .color_blend_state(&blend)
                .dynamic_state(&dynamic)
                .layout(self.graphics_pipelines[i].layout);
            let format_or_undefined = |f: &Option<Format>| f.map_or(vk::Format::UNDEFINED, crate::images::format);
            let (colour_formats, depth_format, stencil_format) = match &gp.target {
                PipelineTarget::Rendering { color_formats, depth_format, stencil_format } => (color_formats.iter().map(format_or_undefined).collect(), format_or_undefined(depth_format), format_or_undefined(stencil_format)),
                PipelineTarget::RenderPass { .. } => (Vec::new(), vk::Format::UNDEFINED, vk::Format::UNDEFINED),
            };
            let mut rendering = vk::PipelineRenderingCreateInfo::default().color_attachment_formats(&colour_formats).depth_attachment_format(depth_format).stencil_attachment_format(stencil_format);
            match &gp.target {
                PipelineTarget::RenderPass { render_pass, subpass } => info = info.render_pass(self.render_passes[*render_pass]).subpass(*subpass),
                PipelineTarget::Rendering { .. } if f.dynamic_rendering => info = info.push_next(&mut rendering),
                PipelineTarget::Rendering { .. } => return Err(unsupported(&at, "a pipeline for dynamic rendering needs the dynamicRendering feature (Vulkan 1.3), which the device does not support")),
            }
            // SAFETY: every pointer in `info` outlives the call.
            let pipeline = unsafe { self.s.device.create_graphics_pipelines(vk::PipelineCache::null(), &[info], None) }.map_err(|(_, e)| e).call_at("vkCreateGraphicsPipelines", &at)?;
            self.graphics_pipelines[i].pipeline = pipeline[0];
            self.s.name(pipeline[0], &gp.name);
        }
        Ok(())
    }
}

// ---------------------------------------------------------------------------------------------
// Recording
// ---------------------------------------------------------------------------------------------

/// The graphics state of one command buffer as it is recorded: what each draw's dynamic
/// viewport and scissor are.
#[derive(Default)]
pub(crate) struct Recorder {
    /// The render area of the render pass instance (or dynamic rendering) being recorded.
    area: Option<vk::Rect2D>,
    /// The latest vkCmdSetViewport of the command buffer.
    viewport: Option<vk::Viewport>,
    /// The latest vkCmdSetScissor of the command buffer.
    scissor: Option<vk::Rect2D>,
}

impl Recorder {
    /// Records graphics command `c` (place `at`) into `handle`.
    pub(crate) fn record(&mut self, o: &Objects<'_>, w: &Workload, handle: vk::CommandBuffer, c: &Command, at: &str) -> Result<(), ReplayError> {
        let d = &o.s.device;
        // SAFETY (each arm): recording into a command buffer in the recording state, with live
        // handles made by `Objects` and arrays that outlive the call.
        match c {
            Command::BeginRenderPass { render_pass, framebuffer, render_area, clear_values } => {
                let values: Vec<vk::ClearValue> = clear_values.iter().map(|v| v.as_ref().map_or(vk::ClearValue::default(), clear_value)).collect();
                let area = rect(render_area);
                let info = vk::RenderPassBeginInfo::default().render_pass(o.render_passes[*render_pass]).framebuffer(o.framebuffers[*framebuffer]).render_area(area).clear_values(&values);
                let begin = vk::SubpassBeginInfo::default().contents(vk::SubpassContents::INLINE);
                unsafe { d.cmd_begin_render_pass2(handle, &info, &begin) };
                self.area = Some(area);
            }
            Command::NextSubpass => {
                let begin = vk::SubpassBeginInfo::default().contents(vk::SubpassContents::INLINE);
                unsafe { d.cmd_next_subpass2(handle, &begin, &vk::SubpassEndInfo::default()) };
            }
            Command::EndRenderPass => {
                unsafe { d.cmd_end_render_pass2(handle, &vk::SubpassEndInfo::default()) };
                self.area = None;
            }
            Command::BeginRendering(info) => {
                if !o.s.features.dynamic_rendering {
                    return Err(unsupported(at, "vkCmdBeginRendering needs the dynamicRendering feature (Vulkan 1.3), which the device does not support"));
                }
                let f = &o.s.features;
                let attachment = |a: &Option<RenderingAttachment>| -> Result<vk::RenderingAttachmentInfo<'static>, ReplayError> {
                    let Some(a) = a else { return Ok(vk::RenderingAttachmentInfo::default().image_view(vk::ImageView::null()).image_layout(vk::ImageLayout::UNDEFINED)) };
                    let mut r = vk::RenderingAttachmentInfo::default()
                        .image_view(o.attachment_views[&key(&a.view)])
                        .image_layout(crate::images::layout(&a.layout, at)?)
                        .load_op(load_op(a.load_op, f, at)?)
                        .store_op(store_op(a.store_op, f, at)?);
                    if let Some(v) = &a.clear_value {
                        r = r.clear_value(clear_value(v));
                    }
                    Ok(r)
                };
                let colours: Vec<vk::RenderingAttachmentInfo> = info.color_attachments.iter().map(attachment).collect::<Result<_, _>>()?;
                let depth = info.depth_attachment.as_ref().map(|_| attachment(&info.depth_attachment)).transpose()?;
                let stencil = info.stencil_attachment.as_ref().map(|_| attachment(&info.stencil_attachment)).transpose()?;
                let area = rect(&info.render_area);
                let mut ri = vk::RenderingInfo::default().render_area(area).layer_count(info.layer_count).color_attachments(&colours);
                if let Some(z) = &depth {
                    ri = ri.depth_attachment(z);
                }
                if let Some(s) = &stencil {
                    ri = ri.stencil_attachment(s);
                }
                unsafe { d.cmd_begin_rendering(handle, &ri) };
                self.area = Some(area);
            }
            Command::EndRendering => {
                if !o.s.features.dynamic_rendering {
                    return Err(unsupported(at, "vkCmdEndRendering needs the dynamicRendering feature (Vulkan 1.3), which the device does not support"));
                }
                unsafe { d.cmd_end_rendering(handle) };
                self.area = None;
            }
            Command::BindVertexBuffers { first_binding, buffers } => {
                let (b, offsets): (Vec<vk::Buffer>, Vec<u64>) = buffers.iter().map(|&(b, off)| (o.buffers[b], off)).unzip();
                unsafe { d.cmd_bind_vertex_buffers(handle, *first_binding, &b, &offsets) };
            }
            Command::BindIndexBuffer { buffer, offset, index_type: t } => unsafe { d.cmd_bind_index_buffer(handle, o.buffers[*buffer], *offset, index_type(*t)) },
            Command::SetViewport(v) => {
                let v = vk::Viewport { x: v.x, y: v.y, width: v.width, height: v.height, min_depth: v.min_depth, max_depth: v.max_depth };
                unsafe { d.cmd_set_viewport(handle, 0, &[v]) };
                self.viewport = Some(v);
            }
            Command::SetScissor(r) => {
                let r = rect(r);
                unsafe { d.cmd_set_scissor(handle, 0, &[r]) };
                self.scissor = Some(r);
            }
            Command::Draw { pipeline, kind, bindings, push_constants, images } => {
                let p = &o.graphics_pipelines[*pipeline];
                unsafe { d.cmd_bind_pipeline(handle, vk::PipelineBindPoint::GRAPHICS, p.pipeline) };
                crate::descriptors::bind_descriptors(o, w, handle, vk::PipelineBindPoint::GRAPHICS, p, bindings, images, at)?;
                if !push_constants.is_empty() {
                    unsafe { d.cmd_push_constants(handle, p.layout, p.push_stages, 0, push_constants) };
                }
                // The dynamic state every pipeline has: what the command buffer set, else the
                // render area (a draw outside a render pass instance has neither, and the
                // layer says so).
                let area_viewport = self.area.map(|a| vk::Viewport { x: a.offset.x as f32, y: a.offset.y as f32, width: a.extent.width as f32, height: a.extent.height as f32, min_depth: 0.0, max_depth: 1.0 });
                if let Some(v) = self.viewport.or(area_viewport) {
                    unsafe { d.cmd_set_viewport(handle, 0, &[v]) };
                }
                if let Some(s) = self.scissor.or(self.area) {
                    unsafe { d.cmd_set_scissor(handle, 0, &[s]) };
                }
                match *kind {
                    DrawKind::Direct { vertex_count, instance_count, first_vertex, first_instance } => unsafe { d.cmd_draw(handle, vertex_count, instance_count, first_vertex, first_instance) },
                    DrawKind::Indexed { index_count, instance_count, first_index, vertex_offset, first_instance } => unsafe {
                        d.cmd_draw_indexed(handle, index_count, instance_count, first_index, vertex_offset, first_instance)
                    },
                    DrawKind::Indirect { indexed, buffer, offset, draw_count, stride } => {
                        if draw_count > 1 && !o.s.features.multi_draw_indirect {
                            return Err(unsupported(at, format!("{draw_count} indirect draws in one command need multiDrawIndirect, which the device does not support")));
                        }
                        if indexed {
                            unsafe { d.cmd_draw_indexed_indirect(handle, o.buffers[buffer], offset, draw_count, stride) };
                        } else {
                            unsafe { d.cmd_draw_indirect(handle, o.buffers[buffer], offset, draw_count, stride) };
                        }
                    }
                }
            }
            Command::ClearAttachments { attachments, rects } => {
                let a: Vec<vk::ClearAttachment> = attachments
                    .iter()
                    .map(|a| match a {
                        ClearAttachment::Color { attachment, value } => vk::ClearAttachment { aspect_mask: vk::ImageAspectFlags::COLOR, color_attachment: *attachment, clear_value: clear_value(value) },
                        ClearAttachment::DepthStencil { depth, stencil, value } => {
                            let mut mask = vk::ImageAspectFlags::empty();
                            if *depth {
                                mask |= vk::ImageAspectFlags::DEPTH;
                            }
                            if *stencil {
                                mask |= vk::ImageAspectFlags::STENCIL;
                            }
                            vk::ClearAttachment { aspect_mask: mask, color_attachment: 0, clear_value: clear_value(value) }
                        }
                    })
                    .collect();
                let r: Vec<vk::ClearRect> = rects.iter().map(|r| vk::ClearRect { rect: rect(&r.rect), base_array_layer: r.base_array_layer, layer_count: r.layer_count }).collect();
                unsafe { d.cmd_clear_attachments(handle, &a, &r) };
            }
            _ => unreachable!("{} is not a graphics command", c.vk_name()),
        }
        Ok(())
    }
}
