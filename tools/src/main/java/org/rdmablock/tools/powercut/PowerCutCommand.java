package org.rdmablock.tools.powercut;

import org.rdmablock.initiator.InitiatorConfig;
import org.rdmablock.initiator.Lun;
import org.rdmablock.initiator.SrpInitiator;
import org.rdmablock.initiator.SrpIoException;
import org.rdmablock.target.CommandLines;
import org.rdmablock.target.config.Quantities;
import org.rdmablock.tools.session.TargetOptions;
import org.rdmablock.tools.verify.VerifiedBlock;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

/**
 * {@code rdmablock powercut write}: a writer per LUN ({@link PowerCutWriter}), journalled into {@code --journal} (a
 * folder on a machine that keeps its power), until stopped or until the target's machine loses its power; the file
 * {@code writing} appears in the journal folder once every LUN has an acknowledged write (the harness cuts the power
 * some seconds after it). {@code rdmablock powercut verify}: after that machine came back, each journal replayed and
 * every block written read back: it must be whole and its own, no older than the rules make durable and no newer
 * than the last generation sent.
 *
 * <p>Exit status: 0 nothing durable lost; 1 the target could not be reached; 2 a bad option; 3 a durable write lost
 * or a block not whole (each LUN's first is printed).
 */
@Command(name = "rdmablock powercut", mixinStandardHelpOptions = true, versionProvider = CommandLines.Version.class, sortOptions = false,
        description = "Journalled writes to a target whose machine will lose its power, and the check of what survived.")
public final class PowerCutCommand implements Callable<Integer> {
    static final int EXIT_LOST = 3;
    static final String WRITING = "writing";

    @Parameters(index = "0", paramLabel = "write|verify", description = "write: journalled writes until stopped; verify: check them")
    String mode;

    @Mixin
    TargetOptions session;

    @Option(names = "--journal", required = true, description = "the journals' folder (write: made if missing, must hold no journal)")
    Path journal;

    @Option(names = "--lun", paramLabel = "N:POLICY", split = ",", description = "write: LUN N, write-through or write-back "
            + "as its config says (which writes the rules make durable); several by commas (default: 0:write-through)")
    List<String> luns = List.of("0:" + PowerCutJournal.WRITE_THROUGH);

    @Option(names = "--blocks", defaultValue = "256", description = "write: blocks written in turn on each LUN (default: ${DEFAULT-VALUE})")
    int blocks;

    @Option(names = "--duration", defaultValue = "0", description = "write: stop after this long (default: ${DEFAULT-VALUE}, until "
            + "killed or the target stops answering)")
    String duration;

    public static void main(final String[] args) {
        System.exit(CommandLines.of(new PowerCutCommand(), "rdmablock powercut").execute(args));
    }

    @Override
    public Integer call() throws Exception {
        final InitiatorConfig config;
        final long runNanos;
        try {
            config = session.config(null).withFaultHandling(Duration.ofSeconds(5), Duration.ofSeconds(30), 3);
            runNanos = Quantities.parseDuration(duration).toNanos();
        } catch (IllegalArgumentException e) {
            System.err.println("rdmablock powercut: " + e.getMessage());
            return 2;
        }
        return switch (mode) {
            case "write" -> write(config, runNanos);
            case "verify" -> verify(config);
            default -> {
                System.err.println("rdmablock powercut: write or verify, not " + mode);
                yield 2;
            }
        };
    }

    private int write(final InitiatorConfig config, final long runNanos) throws Exception {
        Files.createDirectories(journal);
        final List<PowerCutWriter> writers = new ArrayList<>();
        final List<Thread> threads = new ArrayList<>();
        final List<PowerCutJournal> journals = new ArrayList<>();
        try (SrpInitiator initiator = SrpInitiator.connect(config)) {
            final AtomicInteger started = new AtomicInteger();
            for (final String spec : luns) {
                final String[] parts = spec.split(":");
                final String policy = parts.length > 1 ? parts[1] : PowerCutJournal.WRITE_THROUGH;
                if (!policy.equals(PowerCutJournal.WRITE_THROUGH) && !policy.equals(PowerCutJournal.WRITE_BACK)) {
                    System.err.println("rdmablock powercut: --lun " + spec + ": write-through or write-back");
                    return 2;
                }
                final Lun lun = initiator.lun(Integer.parseInt(parts[0]));
                final PowerCutJournal j = new PowerCutJournal(journal.resolve("lun-" + lun.number() + ".journal"),
                        lun.number(), blocks, policy);
                journals.add(j);
                final PowerCutWriter writer = new PowerCutWriter(initiator, lun, blocks, policy.equals(PowerCutJournal.WRITE_BACK), j,
                        () -> {
                            if (started.incrementAndGet() == luns.size()) {
                                touch(journal.resolve(WRITING));
                            }
                        });
                writers.add(writer);
                threads.add(Thread.ofPlatform().name("powercut-lun-" + lun.number()).start(writer));
            }
            System.err.println("rdmablock powercut: writing " + luns + ", journals in " + journal);
            final long deadline = System.nanoTime() + runNanos;
            for (final Thread t : threads) {
                while (t.isAlive() && (runNanos == 0 || System.nanoTime() - deadline < 0)) {
                    t.join(100);
                }
            }
            writers.forEach(PowerCutWriter::stop);
            for (final Thread t : threads) {
                t.join();
            }
            for (final PowerCutWriter w : writers) {
                System.err.println("rdmablock powercut: " + w.acknowledged.get() + " writes acknowledged; " + w.ended);
            }
            return 0;
        } finally {
            for (final PowerCutJournal j : journals) {
                j.close();
            }
        }
    }

    private static void touch(final Path file) {
        try {
            Files.writeString(file, "");
        } catch (IOException e) {
            System.err.println("rdmablock powercut: cannot write " + file + ": " + e.getMessage());
        }
    }

    private int verify(final InitiatorConfig config) throws Exception {
        final List<Path> files;
        try (Stream<Path> listing = Files.list(journal)) {
            files = listing.filter(p -> p.getFileName().toString().endsWith(".journal")).sorted().toList();
        }
        if (files.isEmpty()) {
            System.err.println("rdmablock powercut: no journal in " + journal);
            return 2;
        }
        long lost = 0;
        try (SrpInitiator initiator = SrpInitiator.connect(config)) {
            for (final Path file : files) {
                lost += verify(initiator, PowerCutJournal.Replay.read(file));
            }
        } catch (SrpIoException e) {
            System.err.println("rdmablock powercut: " + e.getMessage());
            return 1;
        }
        return lost == 0 ? 0 : EXIT_LOST;
    }

    /** One LUN's blocks against its journal; prints its line; the count of blocks that break the rules. */
    private static long verify(final SrpInitiator initiator, final PowerCutJournal.Replay replay) throws SrpIoException {
        final Lun lun = initiator.lun(replay.lun());
        final int blockSize = lun.blockSize();
        final MemorySegment buffer = initiator.allocateBuffer(blockSize);
        long checked = 0;
        long durableBlocks = 0;
        long wrong = 0;
        String first = null;
        for (int lba = 0; lba < replay.sent().length; lba++) {
            final long sent = replay.sent()[lba];
            final long durable = replay.durable()[lba];
            if (sent == 0) {
                continue;
            }
            lun.readBlocking(lba, 1, buffer, 0);
            checked++;
            durableBlocks += durable > 0 ? 1 : 0;
            final String why = VerifiedBlock.check(buffer, blockSize, lba, durable, sent, "durable");
            if (why != null) {
                wrong++;
                first = first == null ? why : first;
            }
        }
        System.out.printf(Locale.ROOT, "LUN %d (%s): %d writes acknowledged, %d SYNCHRONIZE CACHE; %d blocks read back, %d"
                        + " of them with a durable generation; %d lost or broken%s%n", replay.lun(), replay.policy(),
                replay.acknowledged(), replay.syncs(), checked, durableBlocks, wrong, first == null ? "" : " (first: " + first + ")");
        return wrong;
    }
}
