//! The Vulkan instance and device a replay runs on: loading the loader at run time (so gpusim
//! runs where there is none), picking the physical device, enabling the validation layer, and
//! mapping the trace's queues onto the device's queue families.

use std::ffi::CString;

use ash::vk;
use sim_core::api::{Command, HostOp, Workload};

use crate::error::{ReplayError, VkContext};
use crate::layer::{self, Capture};

/// The environment variable naming the Vulkan loader library to open instead of the system's
/// `libvulkan.so.1` (a machine with a driver but no loader installed, or a loader to test).
pub const LOADER_VARIABLE: &str = "GPUSIM_VULKAN_LOADER";

/// The device a replay ran on, as the report names it.
#[derive(Clone, Debug, serde::Serialize)]
pub struct DeviceInfo {
    /// VkPhysicalDeviceProperties::deviceName.
    pub name: String,
    /// VkPhysicalDeviceDriverProperties::driverName.
    pub driver: String,
    /// VkPhysicalDeviceDriverProperties::driverInfo.
    pub driver_info: String,
    /// The device's Vulkan version, `1.3.230`.
    pub api_version: String,
    /// VkPhysicalDeviceType, `CPU`, `DISCRETE_GPU`, ...
    pub device_type: String,
    /// The subgroup size its compute shaders run with.
    pub subgroup_size: u32,
}

/// An open device: the instance, the logical device, its queues and the layer's messages.
pub struct Session {
    /// Keeps the loader loaded.
    pub(crate) _entry: ash::Entry,
    pub(crate) instance: ash::Instance,
    pub(crate) device: ash::Device,
    pub(crate) debug_instance: Option<ash::ext::debug_utils::Instance>,
    pub(crate) debug_device: Option<ash::ext::debug_utils::Device>,
    pub(crate) messenger: vk::DebugUtilsMessengerEXT,
    /// Boxed: the layer holds its address.
    pub(crate) capture: Box<Capture>,
    /// Device queue and its family for each trace queue.
    pub(crate) queues: Vec<(vk::Queue, u32)>,
    pub(crate) memory: vk::PhysicalDeviceMemoryProperties,
    pub(crate) limits: vk::PhysicalDeviceLimits,
    pub(crate) sync2: bool,
    /// Graphics features the device has and the replay enabled.
    pub(crate) features: GraphicsFeatures,
    /// What the device is.
    pub info: DeviceInfo,
    /// Things a reader should know (queues shared, memory types chosen).
    pub notes: Vec<String>,
    /// The validation layer and its version (`VK_LAYER_KHRONOS_validation 1.3.239`), when loaded.
    pub layer: Option<String>,
}

fn version(v: u32) -> String {
    format!("{}.{}.{}", vk::api_version_major(v), vk::api_version_minor(v), vk::api_version_patch(v))
}

fn device_type(t: vk::PhysicalDeviceType) -> &'static str {
    match t {
        vk::PhysicalDeviceType::INTEGRATED_GPU => "INTEGRATED_GPU",
        vk::PhysicalDeviceType::DISCRETE_GPU => "DISCRETE_GPU",
        vk::PhysicalDeviceType::VIRTUAL_GPU => "VIRTUAL_GPU",
        vk::PhysicalDeviceType::CPU => "CPU",
        _ => "OTHER",
    }
}

fn c_str(chars: &[std::ffi::c_char]) -> String {
    // SAFETY: Vulkan's fixed-size name arrays are NUL-terminated.
    let bytes: Vec<u8> = chars.iter().take_while(|&&c| c != 0).map(|&c| c as u8).collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

/// The optional parts of graphics replay the device supports, each enabled at device creation
/// where it is supported, so that a trace that needs one is refused with the reason rather than
/// replayed as invalid Vulkan.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct GraphicsFeatures {
    /// `dynamicRendering` (Vulkan 1.3): vkCmdBeginRendering.
    pub(crate) dynamic_rendering: bool,
    /// VK_ATTACHMENT_LOAD_OP_NONE_EXT (VK_EXT_load_store_op_none).
    pub(crate) load_op_none: bool,
    /// VK_ATTACHMENT_STORE_OP_NONE (Vulkan 1.3, or VK_EXT_load_store_op_none).
    pub(crate) store_op_none: bool,
    /// `multiDrawIndirect`: indirect draws of more than one record.
    pub(crate) multi_draw_indirect: bool,
    /// `independentBlend`: colour attachments blended differently.
    pub(crate) independent_blend: bool,
}

/// What each trace queue needs of its device queue (graphics when a command buffer submitted to
/// it draws, compute when one dispatches, both for both, transfer otherwise), and the flags its
/// family was declared with.
fn queue_needs(w: &Workload) -> Vec<(vk::QueueFlags, vk::QueueFlags)> {
    let declared = |q: usize| {
        let f = w.queue_flags.get(q).copied().unwrap_or(sim_core::api::QueueFlags::ALL);
        let mut v = vk::QueueFlags::empty();
        for (on, bit) in [(f.graphics, vk::QueueFlags::GRAPHICS), (f.compute, vk::QueueFlags::COMPUTE), (f.transfer, vk::QueueFlags::TRANSFER)] {
            if on {
                v |= bit;
            }
        }
        v
    };
    let mut needs: Vec<(vk::QueueFlags, vk::QueueFlags)> = (0..w.queues.len()).map(|q| (vk::QueueFlags::TRANSFER, declared(q))).collect();
    for op in &w.timeline {
        if let HostOp::QueueSubmit { queue, batches, .. } = op {
            let commands = || batches.iter().flat_map(|b| &b.command_buffers).filter_map(|&cb| w.command_buffers.get(cb)).flat_map(|c| &c.commands);
            let mut need = vk::QueueFlags::empty();
            if commands().any(|c| matches!(c, Command::Dispatch { .. })) {
                need |= vk::QueueFlags::COMPUTE;
            }
            if commands().any(sim_core::api::Command::is_graphics) {
                need |= vk::QueueFlags::GRAPHICS;
            }
            if let Some(n) = needs.get_mut(*queue)
                && !need.is_empty()
            {
                n.0 = (n.0 & !vk::QueueFlags::TRANSFER) | need;
            }
        }
    }
    needs
}

/// Whether a family with `flags` can run what `need` asks (graphics and compute queues also
/// take transfers).
fn family_can(flags: vk::QueueFlags, need: vk::QueueFlags) -> bool {
    if need == vk::QueueFlags::TRANSFER {
        flags.intersects(vk::QueueFlags::TRANSFER | vk::QueueFlags::COMPUTE | vk::QueueFlags::GRAPHICS)
    } else {
        flags.contains(need)
    }
}

/// How far a family's flags are from a trace queue's declared ones (0: the same three bits), so
/// that a queue declared TRANSFER goes to a dedicated transfer family where there is one, as an
/// application's would.
fn distance(flags: vk::QueueFlags, declared: vk::QueueFlags) -> u32 {
    let three = vk::QueueFlags::GRAPHICS | vk::QueueFlags::COMPUTE | vk::QueueFlags::TRANSFER;
    // A graphics or compute family takes transfers without saying so.
    let mut f = flags & three;
    if f.intersects(vk::QueueFlags::GRAPHICS | vk::QueueFlags::COMPUTE) {
        f |= vk::QueueFlags::TRANSFER;
    }
    (f ^ (declared & three)).as_raw().count_ones()
}

/// Device queue `(family, index)` for each trace queue, and how many queues of each family to
/// create. `families` are the device's (flags, queue count); `needs` each trace queue's (what
/// its commands need, its declared flags). Each trace queue gets its own device queue while
/// there are any, on a family that can run its commands, the one closest to its declared flags
/// first (a queue declared without flags: a graphics-and-compute family, as applications use
/// them); then trace queues share one, in order, with a note.
#[allow(clippy::type_complexity)]
fn assign_queues(families: &[(vk::QueueFlags, u32)], needs: &[(vk::QueueFlags, vk::QueueFlags)], names: &[String], notes: &mut Vec<String>) -> Result<(Vec<(u32, u32)>, Vec<u32>), ReplayError> {
    let mut used = vec![0u32; families.len()];
    let mut slots: Vec<(u32, u32)> = Vec::new();
    for (q, &(need, declared)) in needs.iter().enumerate() {
        let mut order: Vec<usize> = (0..families.len()).collect();
        order.sort_by_key(|&f| (distance(families[f].0, declared), f));
        let fresh = order.iter().copied().find(|&f| family_can(families[f].0, need) && used[f] < families[f].1);
        let slot = match fresh {
            Some(f) => {
                used[f] += 1;
                (f as u32, used[f] - 1)
            }
            None => {
                let shared = (0..q).find(|&p| family_can(families[slots[p].0 as usize].0, need)).map(|p| slots[p]);
                let Some(s) = shared.or_else(|| order.iter().copied().find(|&f| family_can(families[f].0, need)).map(|f| (f as u32, 0))) else {
                    return Err(ReplayError::Unsupported { at: format!("queues[{}]", names[q]), message: format!("the device has no queue family with {need:?}") });
                };
                used[s.0 as usize] = used[s.0 as usize].max(1);
                notes.push(format!(
                    "the device has fewer queues than the trace: trace queue `{}` shares device queue family {} index {} with an earlier trace queue, so their submissions run in host order",
                    names[q], s.0, s.1
                ));
                s
            }
        };
        slots.push(slot);
    }
    Ok((slots, used))
}

impl Session {
    /// Opens the device named like `device` (or the first), with the validation layer when
    /// `validate`, for running `w`.
    pub fn open(w: &Workload, device: Option<&str>, validate: bool) -> Result<Session, ReplayError> {
        // SAFETY: loading the system's Vulkan loader; its initializers are trusted like any
        // library's.
        let entry = match std::env::var_os(LOADER_VARIABLE) {
            // SAFETY: as above, a loader the user named.
            Some(path) => unsafe { ash::Entry::load_from(&path) }.map_err(|e| ReplayError::NoLoader(format!("{LOADER_VARIABLE}={}: {e}", path.to_string_lossy())))?,
            None => unsafe { ash::Entry::load() }.map_err(|e| ReplayError::NoLoader(e.to_string()))?,
        };
        // SAFETY: plain queries of the loader.
        let layers = unsafe { entry.enumerate_instance_layer_properties() }.call("vkEnumerateInstanceLayerProperties")?;
        let extensions = unsafe { entry.enumerate_instance_extension_properties(None) }.call("vkEnumerateInstanceExtensionProperties")?;
        let found = layers.iter().find(|l| l.layer_name_as_c_str().is_ok_and(|n| n == layer::LAYER_NAME));
        let has_layer = found.is_some();
        let layer_version = found.filter(|_| validate).map(|l| format!("{} {}", layer::LAYER_NAME.to_string_lossy(), version(l.spec_version)));
        if validate && !has_layer {
            return Err(ReplayError::NoLayer);
        }
        let has_debug_utils = extensions.iter().any(|e| e.extension_name_as_c_str().is_ok_and(|n| n == ash::ext::debug_utils::NAME));
        if validate && !has_debug_utils {
            return Err(ReplayError::Unsupported { at: "--validate".into(), message: "the Vulkan loader offers no VK_EXT_debug_utils, through which the layer's messages are caught".into() });
        }
        if validate {
            // SAFETY: set before the instance exists, from the one thread that makes Vulkan
            // calls; the layer reads it when the instance is created.
            unsafe {
                std::env::set_var("VK_LAYER_ENABLES", layer::LAYER_ENABLES);
                // Every message, not the first ten of each id: iterations repeat them.
                std::env::set_var("VK_LAYER_DUPLICATE_MESSAGE_LIMIT", "1000000");
            }
        }
        let app = vk::ApplicationInfo::default().application_name(c"gpusim replay").api_version(vk::API_VERSION_1_3);
        let layer_names = if validate { vec![layer::LAYER_NAME.as_ptr()] } else { Vec::new() };
        let ext_names = if has_debug_utils { vec![ash::ext::debug_utils::NAME.as_ptr()] } else { Vec::new() };
        let enables = [vk::ValidationFeatureEnableEXT::SYNCHRONIZATION_VALIDATION];
        let mut features = vk::ValidationFeaturesEXT::default().enabled_validation_features(&enables);
        let mut info = vk::InstanceCreateInfo::default().application_info(&app).enabled_layer_names(&layer_names).enabled_extension_names(&ext_names);
        if validate {
            info = info.push_next(&mut features);
        }
        // SAFETY: every pointer in `info` outlives the call.
        let instance = match unsafe { entry.create_instance(&info, None) } {
            Ok(i) => i,
            // The loader found no driver at all.
            Err(vk::Result::ERROR_INCOMPATIBLE_DRIVER) => return Err(ReplayError::NoDevice),
            Err(vk::Result::ERROR_LAYER_NOT_PRESENT) => return Err(ReplayError::NoLayer),
            Err(e) => return Err(ReplayError::Vulkan { call: "vkCreateInstance", result: e, at: None }),
        };
        let mut session = Self::with_instance(entry, instance, has_debug_utils, validate, w, device)?;
        session.layer = layer_version;
        Ok(session)
    }

    fn with_instance(entry: ash::Entry, instance: ash::Instance, debug: bool, validate: bool, w: &Workload, wanted: Option<&str>) -> Result<Session, ReplayError> {
        // From here the instance is destroyed on any error (by the guard) or by Session's Drop.
        struct Guard(Option<ash::Instance>);
        impl Drop for Guard {
            fn drop(&mut self) {
                if let Some(i) = self.0.take() {
                    // SAFETY: nothing created from it is alive.
                    unsafe { i.destroy_instance(None) };
                }
            }
        }
        let mut guard = Guard(Some(instance.clone()));
        let capture = Box::new(Capture::default());
        let (debug_instance, messenger) = if debug && validate {
            let d = ash::ext::debug_utils::Instance::new(&entry, &instance);
            let info = vk::DebugUtilsMessengerCreateInfoEXT::default()
                .message_severity(vk::DebugUtilsMessageSeverityFlagsEXT::ERROR | vk::DebugUtilsMessageSeverityFlagsEXT::WARNING)
                .message_type(vk::DebugUtilsMessageTypeFlagsEXT::GENERAL | vk::DebugUtilsMessageTypeFlagsEXT::VALIDATION | vk::DebugUtilsMessageTypeFlagsEXT::PERFORMANCE)
                .pfn_user_callback(Some(layer::callback))
                .user_data(&*capture as *const Capture as *mut std::ffi::c_void);
            // SAFETY: `capture` is boxed and outlives the messenger (Session drops it last).
            let m = unsafe { d.create_debug_utils_messenger(&info, None) }.call("vkCreateDebugUtilsMessengerEXT")?;
            (Some(d), m)
        } else if debug {
            (Some(ash::ext::debug_utils::Instance::new(&entry, &instance)), vk::DebugUtilsMessengerEXT::null())
        } else {
            (None, vk::DebugUtilsMessengerEXT::null())
        };
        let destroy_messenger = |d: &Option<ash::ext::debug_utils::Instance>| {
            if let Some(d) = d
                && messenger != vk::DebugUtilsMessengerEXT::null()
            {
                // SAFETY: created above, not used after.
                unsafe { d.destroy_debug_utils_messenger(messenger, None) };
            }
        };
        let picked = Self::pick(&instance, wanted);
        let (physical, props) = match picked {
            Ok(p) => p,
            Err(e) => {
                destroy_messenger(&debug_instance);
                return Err(e);
            }
        };
        match Self::make_device(&instance, physical, &props, w, debug) {
            Ok((device, queues, (sync2, features), subgroup_size, driver, notes)) => {
                guard.0 = None;
                // SAFETY: plain query.
                let memory = unsafe { instance.get_physical_device_memory_properties(physical) };
                let debug_device = debug.then(|| ash::ext::debug_utils::Device::new(&instance, &device));
                let info = DeviceInfo {
                    name: c_str(&props.device_name),
                    driver: driver.0,
                    driver_info: driver.1,
                    api_version: version(props.api_version),
                    device_type: device_type(props.device_type).into(),
                    subgroup_size,
                };
                Ok(Session {
                    _entry: entry,
                    instance,
                    device,
                    debug_instance,
                    debug_device,
                    messenger,
                    capture,
                    queues,
                    memory,
                    limits: props.limits,
                    sync2,
                    features,
                    info,
                    notes,
                    layer: None,
                })
            }
            Err(e) => {
                destroy_messenger(&debug_instance);
                Err(e)
            }
        }
    }

    fn pick(instance: &ash::Instance, wanted: Option<&str>) -> Result<(vk::PhysicalDevice, vk::PhysicalDeviceProperties), ReplayError> {
        // SAFETY: plain queries.
        let devices = unsafe { instance.enumerate_physical_devices() }.call("vkEnumeratePhysicalDevices")?;
        let all: Vec<(vk::PhysicalDevice, vk::PhysicalDeviceProperties)> = devices.into_iter().map(|d| (d, unsafe { instance.get_physical_device_properties(d) })).collect();
        if all.is_empty() {
            return Err(ReplayError::NoDevice);
        }
        match wanted {
            None => Ok(all[0]),
            Some(name) => {
                let lower = name.to_lowercase();
                // An index, an exact name, or a part of a name (case-insensitive).
                if let Ok(i) = name.parse::<usize>()
                    && i < all.len()
                {
                    return Ok(all[i]);
                }
                all.iter()
                    .find(|(_, p)| c_str(&p.device_name) == name)
                    .or_else(|| all.iter().find(|(_, p)| c_str(&p.device_name).to_lowercase().contains(&lower)))
                    .copied()
                    .ok_or_else(|| ReplayError::UnknownDevice {
                        wanted: name.into(),
                        available: all.iter().enumerate().map(|(i, (_, p))| format!("{i}: {}", c_str(&p.device_name))).collect::<Vec<_>>().join(", "),
                    })
            }
        }
    }

    #[allow(clippy::type_complexity)]
    fn make_device(
        instance: &ash::Instance,
        physical: vk::PhysicalDevice,
        props: &vk::PhysicalDeviceProperties,
        w: &Workload,
        debug: bool,
    ) -> Result<(ash::Device, Vec<(vk::Queue, u32)>, (bool, GraphicsFeatures), u32, (String, String), Vec<String>), ReplayError> {
        let _ = debug;
        let mut notes = Vec::new();
        if props.api_version < vk::API_VERSION_1_2 {
            return Err(ReplayError::Unsupported { at: "device".into(), message: format!("{} supports Vulkan {}; replay needs 1.2 or later", c_str(&props.device_name), version(props.api_version)) });
        }
        // SAFETY: plain queries with properly chained structures.
        let (subgroup, driver) = unsafe {
            let mut subgroup = vk::PhysicalDeviceSubgroupProperties::default();
            let mut driver = vk::PhysicalDeviceDriverProperties::default();
            let mut p2 = vk::PhysicalDeviceProperties2::default().push_next(&mut subgroup).push_next(&mut driver);
            instance.get_physical_device_properties2(physical, &mut p2);
            (subgroup.subgroup_size, (driver.driver_name_as_c_str().map(|c| c.to_string_lossy().into_owned()).unwrap_or_default(), driver.driver_info_as_c_str().map(|c| c.to_string_lossy().into_owned()).unwrap_or_default()))
        };
        // SAFETY: plain queries with properly chained structures.
        let (core, f12, f13) = unsafe {
            let mut f12 = vk::PhysicalDeviceVulkan12Features::default();
            let mut f13 = vk::PhysicalDeviceVulkan13Features::default();
            let mut f2 = vk::PhysicalDeviceFeatures2::default().push_next(&mut f12);
            if props.api_version >= vk::API_VERSION_1_3 {
                f2 = f2.push_next(&mut f13);
            }
            instance.get_physical_device_features2(physical, &mut f2);
            let core = f2.features;
            (core, (f12.separate_depth_stencil_layouts,), (f13.synchronization2, f13.dynamic_rendering))
        };
        let v13 = props.api_version >= vk::API_VERSION_1_3;
        let sync2_supported = v13 && f13.0 == vk::TRUE;
        // SAFETY: plain query.
        let extensions = unsafe { instance.enumerate_device_extension_properties(physical) }.call("vkEnumerateDeviceExtensionProperties")?;
        let load_store_op_none = extensions.iter().any(|e| e.extension_name_as_c_str().is_ok_and(|n| n == ash::ext::load_store_op_none::NAME));
        let features = GraphicsFeatures {
            dynamic_rendering: v13 && f13.1 == vk::TRUE,
            load_op_none: load_store_op_none,
            store_op_none: v13 || load_store_op_none,
            multi_draw_indirect: core.multi_draw_indirect == vk::TRUE,
            independent_blend: core.independent_blend == vk::TRUE,
        };
        // SAFETY: plain query.
        let families = unsafe { instance.get_physical_device_queue_family_properties(physical) };
        // Each trace queue gets its own device queue while there are any, on a family that can
        // run its commands, the one closest to its declared flags first (a queue declared
        // without flags: a graphics-and-compute family, as applications use them); then queues
        // are shared, in order.
        let flags: Vec<(vk::QueueFlags, u32)> = families.iter().map(|f| (f.queue_flags, f.queue_count)).collect();
        let (slots, used) = assign_queues(&flags, &queue_needs(w), &w.queues, &mut notes)?;
        let priorities: Vec<Vec<f32>> = used.iter().map(|&n| vec![1.0; n as usize]).collect();
        let queue_infos: Vec<vk::DeviceQueueCreateInfo> = used
            .iter()
            .enumerate()
            .filter(|(_, n)| **n > 0)
            .map(|(f, _)| vk::DeviceQueueCreateInfo::default().queue_family_index(f as u32).queue_priorities(&priorities[f]))
            .collect();
        let mut f13 = vk::PhysicalDeviceVulkan13Features::default().synchronization2(sync2_supported).dynamic_rendering(features.dynamic_rendering);
        // Separate depth and stencil layouts (DEPTH_ATTACHMENT_OPTIMAL and the like) are a
        // Vulkan 1.2 feature a trace's render passes may name.
        let mut f12 = vk::PhysicalDeviceVulkan12Features::default().separate_depth_stencil_layouts(f12.0 == vk::TRUE);
        let enabled = vk::PhysicalDeviceFeatures::default()
            .multi_draw_indirect(features.multi_draw_indirect)
            .independent_blend(features.independent_blend)
            .draw_indirect_first_instance(core.draw_indirect_first_instance == vk::TRUE);
        let extension_names = if load_store_op_none { vec![ash::ext::load_store_op_none::NAME.as_ptr()] } else { Vec::new() };
        let mut info = vk::DeviceCreateInfo::default().queue_create_infos(&queue_infos).enabled_features(&enabled).enabled_extension_names(&extension_names).push_next(&mut f12);
        if v13 {
            info = info.push_next(&mut f13);
        }
        // SAFETY: every pointer in `info` outlives the call.
        let device = unsafe { instance.create_device(physical, &info, None) }.call("vkCreateDevice")?;
        // SAFETY: each (family, index) was created above.
        let queues = slots.iter().map(|&(f, i)| (unsafe { device.get_device_queue(f, i) }, f)).collect();
        Ok((device, queues, (sync2_supported, features), subgroup.max(1), driver, notes))
    }

    /// The layer's capture (its messages and phase).
    pub fn capture(&self) -> &Capture {
        &self.capture
    }

    /// Names a Vulkan object after its trace id, so the layer's messages say `[A]`, not a handle.
    pub(crate) fn name<H: vk::Handle>(&self, handle: H, name: &str) {
        if let (Some(d), Ok(name)) = (&self.debug_device, CString::new(name)) {
            let info = vk::DebugUtilsObjectNameInfoEXT::default().object_handle(handle).object_name(&name);
            // SAFETY: `handle` is a live object of this device; a failure only loses a name.
            let _ = unsafe { d.set_debug_utils_object_name(&info) };
        }
    }

    /// The index of a memory type with at least `wanted` properties among `allowed` types,
    /// preferring the type with the fewest extra properties.
    pub(crate) fn memory_type(&self, allowed: u32, wanted: vk::MemoryPropertyFlags) -> Option<u32> {
        pick_memory_type(&self.memory, allowed, wanted)
    }

    /// The property flags of memory type `i`.
    pub(crate) fn memory_type_flags(&self, i: u32) -> vk::MemoryPropertyFlags {
        self.memory.memory_types[i as usize].property_flags
    }
}

/// The index of a memory type of `memory` among the `allowed` bits (VkMemoryRequirements'
/// memoryTypeBits) whose properties include `wanted`: the one with the fewest extra properties,
/// the lowest index among equals (Vulkan orders types by preference).
pub fn pick_memory_type(memory: &vk::PhysicalDeviceMemoryProperties, allowed: u32, wanted: vk::MemoryPropertyFlags) -> Option<u32> {
    (0..memory.memory_type_count.min(vk::MAX_MEMORY_TYPES as u32))
        .filter(|&i| allowed & (1 << i) != 0 && memory.memory_types[i as usize].property_flags.contains(wanted))
        .min_by_key(|&i| (memory.memory_types[i as usize].property_flags & !wanted).as_raw().count_ones())
}

impl Drop for Session {
    fn drop(&mut self) {
        // SAFETY: every object made from the device is destroyed before the Session (Replay
        // holds a borrow of it); the messenger goes before the instance, the capture after.
        unsafe {
            let _ = self.device.device_wait_idle();
            self.device.destroy_device(None);
            if let Some(d) = &self.debug_instance
                && self.messenger != vk::DebugUtilsMessengerEXT::null()
            {
                d.destroy_debug_utils_messenger(self.messenger, None);
            }
            self.instance.destroy_instance(None);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn memory(types: &[vk::MemoryPropertyFlags]) -> vk::PhysicalDeviceMemoryProperties {
        let mut m = vk::PhysicalDeviceMemoryProperties { memory_type_count: types.len() as u32, ..Default::default() };
        for (i, &f) in types.iter().enumerate() {
            m.memory_types[i] = vk::MemoryType { property_flags: f, heap_index: 0 };
        }
        m
    }

    #[test]
    fn trace_queues_go_to_the_closest_family() {
        use vk::QueueFlags as Q;
        let names: Vec<String> = ["gfx", "copy", "async", "plain"].iter().map(|s| s.to_string()).collect();
        // A discrete GPU: one graphics family of 1 queue, a transfer family, a compute family.
        let families = [(Q::GRAPHICS | Q::COMPUTE | Q::TRANSFER, 1), (Q::TRANSFER, 2), (Q::COMPUTE | Q::TRANSFER, 4)];
        let needs = [
            (Q::COMPUTE, Q::GRAPHICS | Q::COMPUTE | Q::TRANSFER),
            (Q::TRANSFER, Q::TRANSFER),
            (Q::COMPUTE, Q::COMPUTE),
            (Q::COMPUTE, Q::GRAPHICS | Q::COMPUTE | Q::TRANSFER),
        ];
        let mut notes = Vec::new();
        let (slots, used) = assign_queues(&families, &needs, &names, &mut notes).unwrap();
        // The fourth wants the graphics family, which is full: the next closest that computes.
        assert_eq!(slots, vec![(0, 0), (1, 0), (2, 0), (2, 1)]);
        assert_eq!(used, vec![1, 1, 2]);
        assert!(notes.is_empty());
        // lavapipe: one queue for everything; the second trace queue shares it, with a note.
        let (slots, used) = assign_queues(&[(Q::GRAPHICS | Q::COMPUTE | Q::TRANSFER, 1)], &needs[..2], &names, &mut notes).unwrap();
        assert_eq!((slots, used), (vec![(0, 0), (0, 0)], vec![1]));
        assert!(notes[0].contains("`copy` shares device queue family 0 index 0"), "{notes:?}");
        // A dispatching queue on a device whose only family copies: refused.
        assert!(assign_queues(&[(Q::TRANSFER, 1)], &needs[..1], &names, &mut Vec::new()).is_err());
    }

    #[test]
    fn memory_types_are_picked_by_their_properties() {
        use vk::MemoryPropertyFlags as M;
        // A discrete GPU's usual types: VRAM, host-coherent system memory, host-cached system memory.
        let m = memory(&[M::DEVICE_LOCAL, M::HOST_VISIBLE | M::HOST_COHERENT, M::HOST_VISIBLE | M::HOST_COHERENT | M::HOST_CACHED]);
        assert_eq!(pick_memory_type(&m, !0, M::DEVICE_LOCAL), Some(0));
        assert_eq!(pick_memory_type(&m, !0, M::HOST_VISIBLE), Some(1), "the fewest extra properties");
        assert_eq!(pick_memory_type(&m, !0, M::HOST_VISIBLE | M::HOST_CACHED), Some(2));
        assert_eq!(pick_memory_type(&m, 0b001, M::HOST_VISIBLE), None, "a buffer that allows only VRAM");
        assert_eq!(pick_memory_type(&m, !0, M::DEVICE_LOCAL | M::HOST_VISIBLE), None, "no such type: the replay refuses the trace");
        // lavapipe: one type with everything.
        let all = M::DEVICE_LOCAL | M::HOST_VISIBLE | M::HOST_COHERENT | M::HOST_CACHED;
        let l = memory(&[all]);
        assert_eq!(pick_memory_type(&l, !0, M::HOST_VISIBLE), Some(0));
        assert_eq!(pick_memory_type(&l, !0, M::empty()), Some(0));
    }
}
