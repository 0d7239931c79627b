package org.rdmablock.tools.powercut;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;

/**
 * One LUN's journal: a text file of records, each written with one {@code write} call, so that a record is on the
 * journal's machine when the call returns (the guest's journal lives on a share of the host, mounted without a cache:
 * each write is a round trip to the host, which keeps its power). Records, one per line:
 * <pre>
 *   lun N blocks B policy write-through|write-back      the first line
 *   P LBA GEN                                          generation GEN of block LBA is about to be sent
 *   W LBA GEN FUA                                      it was acknowledged (FUA 1: written with FUA)
 *   S                                                  a SYNCHRONIZE CACHE was acknowledged
 * </pre>
 * Used by the writer's thread only, or read back whole by {@link Replay}.
 */
final class PowerCutJournal implements AutoCloseable {
    static final String WRITE_THROUGH = "write-through";
    static final String WRITE_BACK = "write-back";

    private final FileChannel channel;
    private final ByteBuffer line = ByteBuffer.allocate(64);

    PowerCutJournal(final Path file, final int lun, final int blocks, final String policy) throws IOException {
        channel = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
        record("lun " + lun + " blocks " + blocks + " policy " + policy);
    }

    void sending(final long lba, final long generation) throws IOException {
        record("P " + lba + " " + generation);
    }

    void acknowledged(final long lba, final long generation, final boolean fua) throws IOException {
        record("W " + lba + " " + generation + (fua ? " 1" : " 0"));
    }

    void synced() throws IOException {
        record("S");
    }

    private void record(final String text) throws IOException {
        line.clear().put((text + "\n").getBytes(StandardCharsets.US_ASCII)).flip();
        while (line.hasRemaining()) {
            channel.write(line);
        }
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }

    /**
     * A journal read back: per block the last generation sent and the oldest generation it may hold, by the rules:
     * a write-through LUN's acknowledged write is durable; a write-back LUN's is durable once written with FUA or once
     * a SYNCHRONIZE CACHE acknowledged after it. A torn last line (the writer's machine lost power mid-write) is left
     * out: what it would have said was not yet true.
     */
    record Replay(int lun, String policy, long[] sent, long[] durable, long acknowledged, long syncs) {
        static Replay read(final Path file) throws IOException {
            final String text = Files.readString(file, StandardCharsets.US_ASCII);
            final List<String> lines = text.lines().toList();
            final boolean whole = text.endsWith("\n");
            if (lines.isEmpty()) {
                throw new IOException(file + ": an empty powercut journal");
            }
            final String[] head = lines.getFirst().split(" ");
            if (head.length != 6 || !head[0].equals("lun") || !head[2].equals("blocks") || !head[4].equals("policy")) {
                throw new IOException(file + ": not a powercut journal (first line: " + lines.getFirst() + ")");
            }
            final int lun = Integer.parseInt(head[1]);
            final int blocks = Integer.parseInt(head[3]);
            final String policy = head[5];
            final boolean writeBack = policy.equals(WRITE_BACK);
            final long[] sent = new long[blocks];
            final long[] acked = new long[blocks];
            final long[] durable = new long[blocks];
            long acknowledged = 0;
            long syncs = 0;
            final int end = whole ? lines.size() : lines.size() - 1;
            for (int i = 1; i < end; i++) {
                final String[] r = lines.get(i).split(" ");
                switch (r[0]) {
                    case "P" -> sent[Integer.parseInt(r[1])] = Long.parseLong(r[2]);
                    case "W" -> {
                        final int lba = Integer.parseInt(r[1]);
                        final long generation = Long.parseLong(r[2]);
                        acked[lba] = generation;
                        acknowledged++;
                        if (!writeBack || r[3].equals("1")) {
                            durable[lba] = Math.max(durable[lba], generation);
                        }
                    }
                    case "S" -> {
                        syncs++;
                        for (int lba = 0; lba < blocks; lba++) {
                            durable[lba] = Math.max(durable[lba], acked[lba]);
                        }
                    }
                    default -> throw new IOException(file + ":" + (i + 1) + ": unknown record " + lines.get(i));
                }
            }
            return new Replay(lun, policy, sent, durable, acknowledged, syncs);
        }
    }
}
