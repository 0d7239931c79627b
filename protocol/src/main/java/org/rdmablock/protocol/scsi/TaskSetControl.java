package org.rdmablock.protocol.scsi;

/**
 * How the engine reaches the commands a transport holds, which it cannot see: PREEMPT AND ABORT (SPC-4 5.13.11.4.5)
 * aborts the preempted nexuses' commands to the unit and answers only once none of them can still change the medium.
 * A transport sets its control on each command ({@link ScsiCommand#controlTasksWith}); without one (the engine driven
 * alone) there are no other commands and the abort is done at once.
 */
public interface TaskSetControl {
    /** Nothing to abort: {@code done} runs at once. */
    TaskSetControl NONE = (unit, preempted, issuer, done) -> done.run();

    /**
     * Aborts every command that {@code preempted} nexuses sent to the unit whose reservations are {@code unit}, other
     * than {@code issuer}; runs {@code done} (on any thread) once each of them has ended, answered or dropped.
     */
    void abortTasks(PersistentReservations unit, Nexus[] preempted, ScsiCommand issuer, Runnable done);
}
