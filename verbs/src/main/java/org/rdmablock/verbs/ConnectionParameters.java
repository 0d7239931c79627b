package org.rdmablock.verbs;

/**
 * Parameters of a connect or accept ({@code struct rdma_conn_param}).
 *
 * @param privateData        bytes delivered to the peer with the request or reply
 * @param responderResources RDMA READ/atomic requests this side accepts in flight (IRD)
 * @param initiatorDepth     RDMA READ/atomic requests this side issues in flight (ORD)
 * @param retryCount         transport retries (IB), 0..7
 * @param rnrRetryCount      receiver-not-ready retries, 0..7, 7 = forever
 */
public record ConnectionParameters(byte[] privateData, int responderResources, int initiatorDepth, int retryCount,
                                   int rnrRetryCount) {
    public ConnectionParameters {
        privateData = privateData == null ? new byte[0] : privateData.clone();
    }

    /** Defaults: 16 reads in flight each way, 7 retries, RNR retry forever. */
    public static ConnectionParameters of(final byte[] privateData) {
        return new ConnectionParameters(privateData, 16, 16, 7, 7);
    }

    public ConnectionParameters withRnrRetryCount(final int count) {
        return new ConnectionParameters(privateData, responderResources, initiatorDepth, retryCount, count);
    }

    @Override
    public byte[] privateData() {
        return privateData.clone();
    }
}
