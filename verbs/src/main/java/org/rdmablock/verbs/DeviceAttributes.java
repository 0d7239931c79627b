package org.rdmablock.verbs;

/**
 * Device limits and capabilities ({@code struct ibv_device_attr}), as far as this API uses them.
 *
 * <p>The largest inline send is not here: libibverbs has no device attribute for it (neither
 * {@code ibv_device_attr} nor {@code ibv_device_attr_ex}), and devices size it per QP from the send queue's WQE
 * size. Ask for it in {@link QueuePairCapabilities#maxInlineData()} when creating the QP (creation fails with
 * EINVAL when the device cannot carry that much) and read what the device granted, often more, from
 * {@link QueuePair#capabilities()}. The soft provider grants up to 1024 bytes.
 *
 * @param firmwareVersion   firmware or provider version string
 * @param nodeGuid          node GUID
 * @param maxMrSize         largest memory region, bytes
 * @param maxQp             queue pairs
 * @param maxQpWr           work requests per queue
 * @param maxSge            scatter/gather elements per work request
 * @param maxSgeRd          scatter elements of an RDMA READ's local buffer (may be less than maxSge)
 * @param maxCq             completion queues
 * @param maxCqe            completions per CQ
 * @param maxMr             memory regions
 * @param maxPd             protection domains
 * @param maxQpRdAtom       outstanding RDMA READ/atomic requests a QP may receive (IRD)
 * @param maxQpInitRdAtom   outstanding RDMA READ/atomic requests a QP may issue (ORD)
 * @param maxMw             memory windows
 * @param maxSrq            shared receive queues
 * @param maxSrqWr          work requests per SRQ
 * @param atomicsSupported  whether atomics are supported (IBV_ATOMIC_HCA or better)
 * @param physicalPortCount ports
 */
public record DeviceAttributes(String firmwareVersion, long nodeGuid, long maxMrSize, int maxQp, int maxQpWr,
                               int maxSge, int maxSgeRd, int maxCq, int maxCqe, int maxMr, int maxPd, int maxQpRdAtom,
                               int maxQpInitRdAtom, int maxMw, int maxSrq, int maxSrqWr, boolean atomicsSupported,
                               int physicalPortCount) {
}
