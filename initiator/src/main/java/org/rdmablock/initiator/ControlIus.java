package org.rdmablock.initiator;

import org.rdmablock.protocol.srp.SrpAerResponse;
import org.rdmablock.protocol.srp.SrpCreditResponse;
import org.rdmablock.protocol.srp.SrpInitiatorLogout;
import org.rdmablock.protocol.srp.SrpTaskManagement;
import org.rdmablock.verbs.MemoryRegion;
import org.rdmablock.verbs.SendWorkRequest;

/**
 * Sends what the initiator sends beyond commands, on the agent thread (the logout on the closing thread, once the agent
 * has stopped): SRP_CRED_RSP, SRP_AER_RSP, SRP_TSK_MGMT and SRP_I_LOGOUT, each built in the next of its own IU buffers
 * (after the commands' ones, round robin) and sent signaled.
 */
final class ControlIus {
    /** IU buffers for control IUs: as many as the send queue keeps entries for. */
    static final int COUNT = SendQueue.CONTROL_ENTRIES;

    private final SendQueue sendQueue;
    private final MemoryRegion ius;
    private final int iuLength;
    /** The first control IU buffer's index among the channel's IU buffers: after the command slots' ones. */
    private final int firstBuffer;
    private final SendWorkRequest[] sends = new SendWorkRequest[COUNT];
    private int next;
    private final SrpCreditResponse creditResponse = new SrpCreditResponse();
    private final SrpAerResponse aerResponse = new SrpAerResponse();
    private final SrpTaskManagement taskManagement = new SrpTaskManagement();
    private final SrpInitiatorLogout logout = new SrpInitiatorLogout();

    ControlIus(final SendQueue sendQueue, final MemoryRegion ius, final int iuLength, final int commandSlots) {
        this.sendQueue = sendQueue;
        this.ius = ius;
        this.iuLength = iuLength;
        this.firstBuffer = commandSlots;
        for (int i = 0; i < COUNT; i++) {
            sends[i] = new SendWorkRequest(1);
        }
    }

    /** Answers the target's SRP_CRED_REQ {@code tag} (SRP r16a 6.10). */
    void answerCreditRequest(final long tag) {
        final int slot = nextSlot();
        creditResponse.wrap(ius.segment(), offset(slot)).reset().setTag(tag);
        post(slot, SrpCreditResponse.LENGTH);
    }

    /** Answers the target's SRP_AER_REQ {@code tag} (SRP r16a 6.12). */
    void answerAerRequest(final long tag) {
        final int slot = nextSlot();
        aerResponse.wrap(ius.segment(), offset(slot)).reset().setTag(tag);
        post(slot, SrpAerResponse.LENGTH);
    }

    /** Sends SRP_TSK_MGMT {@code function} for {@code lun} about the command tagged {@code taskTag} (0: none). */
    void sendTaskManagement(final long tag, final long lun, final int function, final long taskTag) {
        final int slot = nextSlot();
        taskManagement.wrap(ius.segment(), offset(slot)).reset();
        taskManagement.setTag(tag).setLun(lun).setFunction(function).setTaskTag(taskTag);
        post(slot, SrpTaskManagement.LENGTH);
    }

    /** Sends SRP_I_LOGOUT (SRP r16a 6.7): the channel ends. */
    void sendLogout() {
        final int slot = nextSlot();
        logout.wrap(ius.segment(), offset(slot)).reset().setTag(0);
        post(slot, SrpInitiatorLogout.LENGTH);
    }

    private int nextSlot() {
        final int slot = next;
        next = (next + 1) % COUNT;
        return slot;
    }

    private long offset(final int slot) {
        return (long) (firstBuffer + slot) * iuLength;
    }

    private void post(final int slot, final int length) {
        sendQueue.postControl(sends[slot], ius, offset(slot), length, slot);
    }
}
