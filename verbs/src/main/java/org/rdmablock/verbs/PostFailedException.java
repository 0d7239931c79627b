package org.rdmablock.verbs;

/**
 * A post (ibv_post_send(3), ibv_post_recv(3), ibv_post_srq_recv(3)) that was refused: the first {@link #posted()}
 * work requests of the chain were accepted and will complete as usual, the one after them and the rest of the
 * chain were not. The soft provider checks a whole chain before it accepts any of it, so there {@code posted()} is
 * always 0; a native device may accept a prefix (libibverbs reports the first refused request as {@code bad_wr}).
 */
public final class PostFailedException extends VerbsException {
    private final int posted;

    public PostFailedException(final int errno, final String message, final int posted) {
        super(errno, message);
        this.posted = posted;
    }

    /** How many work requests at the head of the chain were posted before the refusal. */
    public int posted() {
        return posted;
    }
}
