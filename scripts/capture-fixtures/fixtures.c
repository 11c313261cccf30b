/* Small Vulkan compute programs captured as the fixtures of tests/captures/.
 *
 * One program, one scenario per run (argv[1]); each does what its name says and nothing else,
 * so its capture is a few KiB:
 *   barrier-missing     fill A; barrier; dispatch B = A*2; copy B -> C with no barrier before it
 *   barrier-correct     the same with a COMPUTE_SHADER/SHADER_WRITE -> TRANSFER/TRANSFER_READ barrier
 *   host-upload-flush   write U through mapped memory, flush it, dispatch B = U*2, barrier, copy B -> C
 *   host-upload-noflush the same without vkFlushMappedMemoryRanges
 *   inline-data         vkCmdUpdateBuffer A, barrier, dispatch B = A*3 + 5 (push constant 3,
 *                       specialization constant 5), barrier, copy B -> C
 *   semaphore-missing   submit 1: fill A, barrier, dispatch B = A*2; submit 2 (second queue when
 *                       the device has one): copy B -> C, with nothing ordering the two
 *   semaphore-correct   the same, submit 2 waiting (at TRANSFER) on a semaphore submit 1 signals
 *   image-missing       clear and copy an image: transition images A (to GENERAL) and B (to
 *                       TRANSFER_DST) with vkCmdPipelineBarrier2; clear A; blit A -> B with no
 *                       barrier between the clear and the blit; a vkCmdPipelineBarrier image
 *                       barrier B TRANSFER_DST -> TRANSFER_SRC; copy B -> buffer C
 *   image-correct       the same with a GENERAL -> GENERAL image barrier (TRANSFER_WRITE ->
 *                       TRANSFER_READ) on A between the clear and the blit
 * The image scenarios also create a view of A and a sampler, which nothing uses, so that their
 * captures hold vkCreateImageView and vkCreateSampler.
 * The shader is double.comp, compiled by the script into double.spv.h (`double_spv`).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vulkan/vulkan.h>

#include "double.spv.h"

#define N 256u
#define BYTES (N * sizeof(uint32_t))
#define CHECK(x)                                                             \
    do {                                                                     \
        VkResult r_ = (x);                                                   \
        if (r_ != VK_SUCCESS) {                                              \
            fprintf(stderr, "%s:%d: %s = %d\n", __FILE__, __LINE__, #x, r_); \
            exit(1);                                                         \
        }                                                                    \
    } while (0)

static VkDevice dev;
static VkPhysicalDeviceMemoryProperties mem_props;

static uint32_t memory_type(uint32_t bits, VkMemoryPropertyFlags want) {
    for (uint32_t i = 0; i < mem_props.memoryTypeCount; i++)
        if ((bits & (1u << i)) && (mem_props.memoryTypes[i].propertyFlags & want) == want) return i;
    fprintf(stderr, "no memory type with flags 0x%x\n", want);
    exit(1);
}

/* A buffer of `size` bytes with its own memory. */
static VkBuffer buffer_of(VkDeviceSize size, VkMemoryPropertyFlags want, VkDeviceMemory *memory) {
    VkBufferCreateInfo info = {VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    info.size = size;
    info.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    VkBuffer b;
    CHECK(vkCreateBuffer(dev, &info, NULL, &b));
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(dev, b, &req);
    VkMemoryAllocateInfo alloc = {VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    alloc.allocationSize = req.size;
    alloc.memoryTypeIndex = memory_type(req.memoryTypeBits, want);
    CHECK(vkAllocateMemory(dev, &alloc, NULL, memory));
    CHECK(vkBindBufferMemory(dev, b, *memory, 0));
    return b;
}

static VkBuffer buffer(VkMemoryPropertyFlags want, VkDeviceMemory *memory) { return buffer_of(BYTES, want, memory); }

/* The image scenarios' images: IMAGE_SIDE x IMAGE_SIDE RGBA8, each with its own memory of the
 * size the device asks for, bound at offset 0. */
#define IMAGE_SIDE 32u
#define IMAGE_BYTES (IMAGE_SIDE * IMAGE_SIDE * 4u)
static VkImage image(VkImageUsageFlags usage, VkDeviceMemory *memory) {
    VkImageCreateInfo info = {VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO};
    info.imageType = VK_IMAGE_TYPE_2D;
    info.format = VK_FORMAT_R8G8B8A8_UNORM;
    info.extent = (VkExtent3D){IMAGE_SIDE, IMAGE_SIDE, 1};
    info.mipLevels = 1;
    info.arrayLayers = 1;
    info.samples = VK_SAMPLE_COUNT_1_BIT;
    info.tiling = VK_IMAGE_TILING_OPTIMAL;
    info.usage = usage;
    info.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
    VkImage im;
    CHECK(vkCreateImage(dev, &info, NULL, &im));
    VkMemoryRequirements req;
    vkGetImageMemoryRequirements(dev, im, &req);
    VkMemoryAllocateInfo alloc = {VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    alloc.allocationSize = req.size;
    alloc.memoryTypeIndex = memory_type(req.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
    CHECK(vkAllocateMemory(dev, &alloc, NULL, memory));
    CHECK(vkBindImageMemory(dev, im, *memory, 0));
    return im;
}

static const VkImageSubresourceRange COLOR_RANGE = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
static const VkImageSubresourceLayers COLOR_LAYERS = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};

/* A synchronization1 image barrier in the TRANSFER stage. */
static void image_barrier(VkCommandBuffer cb, VkImage im, VkAccessFlags src_access, VkAccessFlags dst_access,
                          VkImageLayout old_layout, VkImageLayout new_layout) {
    VkImageMemoryBarrier b = {VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER};
    b.srcAccessMask = src_access;
    b.dstAccessMask = dst_access;
    b.oldLayout = old_layout;
    b.newLayout = new_layout;
    b.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    b.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    b.image = im;
    b.subresourceRange = COLOR_RANGE;
    vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 0, NULL, 0, NULL, 1, &b);
}

/* The image scenarios: see the top of the file. */
static void record_images(VkCommandBuffer cb, int missing, VkImage a, VkImage b, VkBuffer c) {
    VkImageMemoryBarrier2 to[2] = {{VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER_2}, {VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER_2}};
    VkImage images[2] = {a, b};
    VkImageLayout layouts[2] = {VK_IMAGE_LAYOUT_GENERAL, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL};
    VkPipelineStageFlags2 stages[2] = {VK_PIPELINE_STAGE_2_CLEAR_BIT, VK_PIPELINE_STAGE_2_BLIT_BIT};
    for (int i = 0; i < 2; i++) {
        to[i].srcStageMask = VK_PIPELINE_STAGE_2_NONE;
        to[i].dstStageMask = stages[i];
        to[i].dstAccessMask = VK_ACCESS_2_TRANSFER_WRITE_BIT;
        to[i].oldLayout = VK_IMAGE_LAYOUT_UNDEFINED;
        to[i].newLayout = layouts[i];
        to[i].srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
        to[i].dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
        to[i].image = images[i];
        to[i].subresourceRange = COLOR_RANGE;
    }
    VkDependencyInfo dep = {VK_STRUCTURE_TYPE_DEPENDENCY_INFO};
    dep.imageMemoryBarrierCount = 2;
    dep.pImageMemoryBarriers = to;
    vkCmdPipelineBarrier2(cb, &dep);
    VkClearColorValue color = {.float32 = {0.25f, 0.5f, 0.75f, 1.0f}};
    vkCmdClearColorImage(cb, a, VK_IMAGE_LAYOUT_GENERAL, &color, 1, &COLOR_RANGE);
    if (!missing)
        image_barrier(cb, a, VK_ACCESS_TRANSFER_WRITE_BIT, VK_ACCESS_TRANSFER_READ_BIT, VK_IMAGE_LAYOUT_GENERAL,
                      VK_IMAGE_LAYOUT_GENERAL);
    VkImageBlit blit = {COLOR_LAYERS, {{0, 0, 0}, {IMAGE_SIDE, IMAGE_SIDE, 1}}, COLOR_LAYERS,
                        {{0, 0, 0}, {IMAGE_SIDE, IMAGE_SIDE, 1}}};
    vkCmdBlitImage(cb, a, VK_IMAGE_LAYOUT_GENERAL, b, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &blit, VK_FILTER_NEAREST);
    image_barrier(cb, b, VK_ACCESS_TRANSFER_WRITE_BIT, VK_ACCESS_TRANSFER_READ_BIT, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                  VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL);
    VkBufferImageCopy region = {0, 0, 0, COLOR_LAYERS, {0, 0, 0}, {IMAGE_SIDE, IMAGE_SIDE, 1}};
    vkCmdCopyImageToBuffer(cb, b, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, c, 1, &region);
}

static void barrier(VkCommandBuffer cb, VkPipelineStageFlags src, VkAccessFlags src_access, VkPipelineStageFlags dst,
                    VkAccessFlags dst_access) {
    VkMemoryBarrier m = {VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    m.srcAccessMask = src_access;
    m.dstAccessMask = dst_access;
    vkCmdPipelineBarrier(cb, src, dst, 0, 1, &m, 0, NULL, 0, NULL);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s SCENARIO\n", argv[0]);
        return 2;
    }
    const char *s = argv[1];
    int missing = strstr(s, "missing") != NULL;
    int host = strncmp(s, "host-upload", 11) == 0;
    int flush = strcmp(s, "host-upload-flush") == 0;
    int inline_data = strcmp(s, "inline-data") == 0;
    int two_submits = strncmp(s, "semaphore", 9) == 0;
    int images = strncmp(s, "image", 5) == 0;

    VkApplicationInfo app = {VK_STRUCTURE_TYPE_APPLICATION_INFO};
    app.pApplicationName = s;
    /* The image scenarios use vkCmdPipelineBarrier2, core in Vulkan 1.3. */
    app.apiVersion = images ? VK_API_VERSION_1_3 : VK_API_VERSION_1_1;
    VkInstanceCreateInfo ici = {VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
    ici.pApplicationInfo = &app;
    VkInstance inst;
    CHECK(vkCreateInstance(&ici, NULL, &inst));
    uint32_t count = 1;
    VkPhysicalDevice phys;
    vkEnumeratePhysicalDevices(inst, &count, &phys);
    if (count == 0) return 1;
    vkGetPhysicalDeviceMemoryProperties(phys, &mem_props);
    VkQueueFamilyProperties families[8];
    uint32_t family_count = 8;
    vkGetPhysicalDeviceQueueFamilyProperties(phys, &family_count, families);
    uint32_t queues = families[0].queueCount >= 2 ? 2 : 1;
    float priorities[2] = {1.0f, 1.0f};
    VkDeviceQueueCreateInfo qci = {VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
    qci.queueFamilyIndex = 0;
    qci.queueCount = queues;
    qci.pQueuePriorities = priorities;
    VkDeviceCreateInfo dci = {VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
    dci.queueCreateInfoCount = 1;
    dci.pQueueCreateInfos = &qci;
    VkPhysicalDeviceSynchronization2Features sync2 = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SYNCHRONIZATION_2_FEATURES};
    sync2.synchronization2 = VK_TRUE;
    if (images) dci.pNext = &sync2;
    CHECK(vkCreateDevice(phys, &dci, NULL, &dev));
    VkQueue q0, q1;
    vkGetDeviceQueue(dev, 0, 0, &q0);
    vkGetDeviceQueue(dev, 0, queues - 1, &q1);

    VkDeviceMemory ma, mb, mc;
    VkBuffer a = buffer(host ? VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT : VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, &ma);
    VkBuffer b = buffer(VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, &mb);
    VkBuffer c = buffer_of(images ? IMAGE_BYTES : BYTES, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, &mc);
    VkDeviceMemory mia = VK_NULL_HANDLE, mib = VK_NULL_HANDLE;
    VkImage ia = VK_NULL_HANDLE, ib = VK_NULL_HANDLE;
    VkImageView view = VK_NULL_HANDLE;
    VkSampler sampler = VK_NULL_HANDLE;
    if (images) {
        ia = image(VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT | VK_IMAGE_USAGE_SAMPLED_BIT, &mia);
        ib = image(VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT, &mib);
        VkImageViewCreateInfo vci = {VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO};
        vci.image = ia;
        vci.viewType = VK_IMAGE_VIEW_TYPE_2D;
        vci.format = VK_FORMAT_R8G8B8A8_UNORM;
        vci.subresourceRange = COLOR_RANGE;
        CHECK(vkCreateImageView(dev, &vci, NULL, &view));
        VkSamplerCreateInfo sci = {VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO};
        sci.magFilter = VK_FILTER_LINEAR;
        sci.minFilter = VK_FILTER_LINEAR;
        sci.addressModeU = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE;
        sci.addressModeV = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE;
        sci.addressModeW = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE;
        sci.maxLod = VK_LOD_CLAMP_NONE;
        CHECK(vkCreateSampler(dev, &sci, NULL, &sampler));
    }

    VkShaderModuleCreateInfo smci = {VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
    smci.codeSize = sizeof(double_spv);
    smci.pCode = double_spv;
    VkShaderModule module;
    CHECK(vkCreateShaderModule(dev, &smci, NULL, &module));
    VkDescriptorSetLayoutBinding bindings[2] = {
        {0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, NULL},
        {1, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, NULL},
    };
    VkDescriptorSetLayoutCreateInfo dslci = {VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
    dslci.bindingCount = 2;
    dslci.pBindings = bindings;
    VkDescriptorSetLayout dsl;
    CHECK(vkCreateDescriptorSetLayout(dev, &dslci, NULL, &dsl));
    VkPushConstantRange push = {VK_SHADER_STAGE_COMPUTE_BIT, 0, 4};
    VkPipelineLayoutCreateInfo plci = {VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
    plci.setLayoutCount = 1;
    plci.pSetLayouts = &dsl;
    plci.pushConstantRangeCount = 1;
    plci.pPushConstantRanges = &push;
    VkPipelineLayout layout;
    CHECK(vkCreatePipelineLayout(dev, &plci, NULL, &layout));
    uint32_t add = 5;
    VkSpecializationMapEntry entry = {0, 0, sizeof(uint32_t)};
    VkSpecializationInfo spec = {1, &entry, sizeof(add), &add};
    VkComputePipelineCreateInfo cpci = {VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
    cpci.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
    cpci.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
    cpci.stage.module = module;
    cpci.stage.pName = "main";
    cpci.stage.pSpecializationInfo = inline_data ? &spec : NULL;
    cpci.layout = layout;
    VkPipeline pipeline;
    CHECK(vkCreateComputePipelines(dev, VK_NULL_HANDLE, 1, &cpci, NULL, &pipeline));

    VkDescriptorPoolSize pool_size = {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 2};
    VkDescriptorPoolCreateInfo dpci = {VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
    dpci.maxSets = 1;
    dpci.poolSizeCount = 1;
    dpci.pPoolSizes = &pool_size;
    VkDescriptorPool pool;
    CHECK(vkCreateDescriptorPool(dev, &dpci, NULL, &pool));
    VkDescriptorSetAllocateInfo dsai = {VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
    dsai.descriptorPool = pool;
    dsai.descriptorSetCount = 1;
    dsai.pSetLayouts = &dsl;
    VkDescriptorSet set;
    CHECK(vkAllocateDescriptorSets(dev, &dsai, &set));
    VkDescriptorBufferInfo infos[2] = {{a, 0, VK_WHOLE_SIZE}, {b, 0, VK_WHOLE_SIZE}};
    VkWriteDescriptorSet writes[2];
    for (int i = 0; i < 2; i++) {
        VkWriteDescriptorSet w = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
        w.dstSet = set;
        w.dstBinding = i;
        w.descriptorCount = 1;
        w.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
        w.pBufferInfo = &infos[i];
        writes[i] = w;
    }
    vkUpdateDescriptorSets(dev, 2, writes, 0, NULL);

    VkCommandPoolCreateInfo cpoci = {VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    cpoci.queueFamilyIndex = 0;
    VkCommandPool cmd_pool;
    CHECK(vkCreateCommandPool(dev, &cpoci, NULL, &cmd_pool));
    VkCommandBufferAllocateInfo cbai = {VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    cbai.commandPool = cmd_pool;
    cbai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    cbai.commandBufferCount = 2;
    VkCommandBuffer cbs[2];
    CHECK(vkAllocateCommandBuffers(dev, &cbai, cbs));
    VkFenceCreateInfo fci = {VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    VkFence fence;
    CHECK(vkCreateFence(dev, &fci, NULL, &fence));
    VkSemaphoreCreateInfo sci = {VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
    VkSemaphore sem;
    CHECK(vkCreateSemaphore(dev, &sci, NULL, &sem));

    if (host) {
        uint32_t *p;
        CHECK(vkMapMemory(dev, ma, 0, VK_WHOLE_SIZE, 0, (void **)&p));
        for (uint32_t i = 0; i < N; i++) p[i] = i;
        if (flush) {
            VkMappedMemoryRange range = {VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE};
            range.memory = ma;
            range.size = VK_WHOLE_SIZE;
            CHECK(vkFlushMappedMemoryRanges(dev, 1, &range));
        }
    }

    VkCommandBufferBeginInfo begin = {VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    CHECK(vkBeginCommandBuffer(cbs[0], &begin));
    if (images) {
        record_images(cbs[0], missing, ia, ib, c);
    } else if (inline_data) {
        uint32_t data[N];
        for (uint32_t i = 0; i < N; i++) data[i] = i + 1;
        vkCmdUpdateBuffer(cbs[0], a, 0, BYTES, data);
        barrier(cbs[0], VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                VK_ACCESS_SHADER_READ_BIT);
    } else if (!host) {
        vkCmdFillBuffer(cbs[0], a, 0, VK_WHOLE_SIZE, 7);
        barrier(cbs[0], VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                VK_ACCESS_SHADER_READ_BIT);
    }
    VkCommandBuffer copy_cb = two_submits ? cbs[1] : cbs[0];
    if (!images) {
        uint32_t mul = inline_data ? 3 : 2;
        vkCmdBindPipeline(cbs[0], VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
        vkCmdBindDescriptorSets(cbs[0], VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0, 1, &set, 0, NULL);
        vkCmdPushConstants(cbs[0], layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(mul), &mul);
        vkCmdDispatch(cbs[0], N / 64, 1, 1);
        if (two_submits) {
            CHECK(vkEndCommandBuffer(cbs[0]));
            CHECK(vkBeginCommandBuffer(cbs[1], &begin));
        } else if (!missing) {
            barrier(cbs[0], VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
                    VK_ACCESS_TRANSFER_READ_BIT);
        }
        VkBufferCopy region = {0, 0, BYTES};
        vkCmdCopyBuffer(copy_cb, b, c, 1, &region);
    }
    CHECK(vkEndCommandBuffer(copy_cb));

    VkPipelineStageFlags wait_stage = VK_PIPELINE_STAGE_TRANSFER_BIT;
    VkSubmitInfo submit = {VK_STRUCTURE_TYPE_SUBMIT_INFO};
    submit.commandBufferCount = 1;
    submit.pCommandBuffers = &cbs[0];
    if (two_submits) {
        if (!missing) {
            submit.signalSemaphoreCount = 1;
            submit.pSignalSemaphores = &sem;
        }
        CHECK(vkQueueSubmit(q0, 1, &submit, VK_NULL_HANDLE));
        VkSubmitInfo second = {VK_STRUCTURE_TYPE_SUBMIT_INFO};
        second.commandBufferCount = 1;
        second.pCommandBuffers = &cbs[1];
        if (!missing) {
            second.waitSemaphoreCount = 1;
            second.pWaitSemaphores = &sem;
            second.pWaitDstStageMask = &wait_stage;
        }
        CHECK(vkQueueSubmit(q1, 1, &second, fence));
    } else {
        CHECK(vkQueueSubmit(q0, 1, &submit, fence));
    }
    CHECK(vkWaitForFences(dev, 1, &fence, VK_TRUE, UINT64_MAX));
    CHECK(vkDeviceWaitIdle(dev));

    vkDestroySemaphore(dev, sem, NULL);
    vkDestroyFence(dev, fence, NULL);
    vkDestroyCommandPool(dev, cmd_pool, NULL);
    vkDestroyDescriptorPool(dev, pool, NULL);
    vkDestroyPipeline(dev, pipeline, NULL);
    vkDestroyPipelineLayout(dev, layout, NULL);
    vkDestroyDescriptorSetLayout(dev, dsl, NULL);
    vkDestroyShaderModule(dev, module, NULL);
    if (images) {
        vkDestroySampler(dev, sampler, NULL);
        vkDestroyImageView(dev, view, NULL);
        vkDestroyImage(dev, ia, NULL);
        vkDestroyImage(dev, ib, NULL);
        vkFreeMemory(dev, mia, NULL);
        vkFreeMemory(dev, mib, NULL);
    }
    vkDestroyBuffer(dev, a, NULL);
    vkDestroyBuffer(dev, b, NULL);
    vkDestroyBuffer(dev, c, NULL);
    vkFreeMemory(dev, ma, NULL);
    vkFreeMemory(dev, mb, NULL);
    vkFreeMemory(dev, mc, NULL);
    vkDestroyDevice(dev, NULL);
    vkDestroyInstance(inst, NULL);
    printf("%s: %u queue(s)\n", s, queues);
    return 0;
}
