package org.rdmablock.protocol.fuzz;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The harness itself: bounds, determinism, failure reports, replay, hang detection, shrinking, mutators. */
class FuzzRunnerTest {
    private static final FuzzRunner.Config CONFIG = new FuzzRunner.Config(500, Duration.ZERO, null, null, Duration.ofSeconds(10));

    private static FuzzRunner runner(FuzzRunner.Config config) {
        return new FuzzRunner("FuzzRunnerTest#harness", "FuzzRunnerTest#harness", config);
    }

    @Test
    void configDefaultsAndParsing() {
        FuzzRunner.Config defaults = FuzzRunner.Config.from(name -> null);
        assertEquals(FuzzRunner.DEFAULT_ITERATIONS, defaults.iterations());
        assertEquals(Duration.ofSeconds(1), defaults.timeBudget());
        assertNull(defaults.seed());
        assertNull(defaults.onlyIteration());

        Map<String, String> p = new HashMap<>();
        p.put(FuzzRunner.ITERATIONS, "1_000_000");
        p.put(FuzzRunner.SECONDS, "0");
        p.put(FuzzRunner.SEED, "0xfedcba9876543210");
        p.put(FuzzRunner.ITERATION, "17");
        p.put(FuzzRunner.HANG_SECONDS, "2.5");
        FuzzRunner.Config c = FuzzRunner.Config.from(p::get);
        assertEquals(1_000_000, c.iterations());
        assertEquals(Duration.ZERO, c.timeBudget());
        assertEquals(0xfedcba9876543210L, c.seed());
        assertEquals(17L, c.onlyIteration());
        assertEquals(Duration.ofMillis(2500), c.hangTimeout());

        p.put(FuzzRunner.SEED, "-42");
        assertEquals(-42L, FuzzRunner.Config.from(p::get).seed());
        p.put(FuzzRunner.SEED, "random");
        assertTrue(FuzzRunner.Config.from(p::get).seed() != null);
        p.put(FuzzRunner.SEED, "nonsense");
        assertThrows(IllegalArgumentException.class, () -> FuzzRunner.Config.from(p::get));
    }

    @Test
    void longModeDefaultsAndOverrides() {
        Map<String, String> p = new HashMap<>();
        p.put(FuzzRunner.LONG, "true");
        FuzzRunner.Config c = FuzzRunner.Config.from(p::get);
        assertTrue(c.longMode());
        assertEquals(10_000_000, c.iterations());
        assertEquals(Duration.ZERO, c.timeBudget(), "no time bound");
        assertTrue(c.seed() != null, "a fresh seed, printed for replay");

        p.put(FuzzRunner.ITERATIONS, "1000");
        p.put(FuzzRunner.SECONDS, "30");
        p.put(FuzzRunner.SEED, "5");
        c = FuzzRunner.Config.from(p::get);
        assertEquals(1000, c.iterations());
        assertEquals(Duration.ofSeconds(30), c.timeBudget());
        assertEquals(5L, c.seed());

        p.put(FuzzRunner.LONG, "false");
        assertFalse(FuzzRunner.Config.from(p::get).longMode());
        // A property's own CI share applies only when neither the count nor the long mode is given.
        assertEquals(1000, FuzzRunner.Config.from(p::get, 7).iterations());
        p.remove(FuzzRunner.ITERATIONS);
        assertEquals(7, FuzzRunner.Config.from(p::get, 7).iterations());
        p.put(FuzzRunner.LONG, "true");
        assertEquals(FuzzRunner.LONG_ITERATIONS, FuzzRunner.Config.from(p::get, 7).iterations());
        p.put(FuzzRunner.LONG, "yes please");
        assertThrows(IllegalArgumentException.class, () -> FuzzRunner.Config.from(p::get));
    }

    @Test
    void longModeGoesOnPastFailuresCountsThemByKindAndFailsAtTheEnd() {
        // Three planted failures keyed on the first byte: an out-of-bounds access, another exception, an assertion.
        AtomicInteger calls = new AtomicInteger();
        int[] planted = new int[3];
        FuzzRunner.Property<byte[]> property = b -> {
            calls.incrementAndGet();
            int first = b.length > 0 ? b[0] & 0xFF : -1;
            if (first == 0x42) {
                planted[0]++;
                throw new IndexOutOfBoundsException("planted read past the end");
            } else if (first == 0x43) {
                planted[1]++;
                throw new IllegalStateException("planted exception");
            } else if (first == 0x44) {
                planted[2]++;
                throw new AssertionError("planted property failure");
            }
        };
        FuzzRunner.Config config = CONFIG.withIterations(20_000).withSeed(0x77).withLongMode(true);
        FuzzRunner runner = new FuzzRunner("FuzzRunnerTest#harness", "FuzzRunnerTest#harness", config, "planted");
        AssertionError error = assertThrows(AssertionError.class, () -> runner.run(r -> Generators.bytes(r, 8), property));
        String m = error.getMessage();

        assertEquals(20_000, calls.get(), "every iteration ran, failures did not stop the run");
        assertTrue(planted[0] > 0 && planted[1] > 0 && planted[2] > 0, Arrays.toString(planted));
        assertTrue(m.contains("20000 executions"), m);
        assertTrue(m.contains("seed 0x0000000000000077"), m);
        assertTrue(m.contains(String.format("%d escapes (%d out-of-bounds accesses, %d other exceptions), %d property failures",
                planted[0] + planted[1], planted[0], planted[1], planted[2])), m);
        assertTrue(m.contains(planted[0] + " x java.lang.IndexOutOfBoundsException"), m);
        assertTrue(m.contains(planted[2] + " x java.lang.AssertionError"), m);

        // The report's first out-of-bounds iteration replays alone to the same failure.
        String line = m.lines().filter(l -> l.contains("x java.lang.IndexOutOfBoundsException")).findFirst().orElseThrow();
        long iteration = Long.parseLong(line.replaceAll(".*first at iteration (\\d+).*", "$1"));
        assertTrue(m.contains("-Drdmablock.fuzz.iteration=" + iteration), m);
        AssertionError replay = assertThrows(AssertionError.class,
                () -> runner(config.withOnlyIteration(iteration)).run(r -> Generators.bytes(r, 8), property));
        assertInstanceOf(IndexOutOfBoundsException.class, replay.getCause());
    }

    @Test
    void longModeTotalsExecutionsPerTarget() {
        long before = FuzzRunner.targetTotal("harness target");
        FuzzRunner.Config config = CONFIG.withIterations(300).withLongMode(true);
        FuzzRunner.Report report = new FuzzRunner("FuzzRunnerTest#harness", null, config, "harness target")
                .run(r -> r.nextInt(), x -> { });
        assertEquals(300, report.iterations());
        assertEquals(before + 300, FuzzRunner.targetTotal("harness target"));
    }

    @Test
    void seedIsDerivedFromTheNameUnlessGiven() {
        assertEquals(new FuzzRunner("a#b", null, CONFIG).seed(), new FuzzRunner("a#b", null, CONFIG).seed());
        assertNotEquals(new FuzzRunner("a#b", null, CONFIG).seed(), new FuzzRunner("a#c", null, CONFIG).seed());
        assertEquals(7L, new FuzzRunner("a#b", null, CONFIG.withSeed(7)).seed());
    }

    @Test
    void boundedByIterations() {
        List<byte[]> seen = new ArrayList<>();
        FuzzRunner.Report report = runner(CONFIG).run(r -> Generators.bytes(r, 32), seen::add);
        assertEquals(500, report.iterations());
        assertEquals(500, seen.size());
        assertFalse(report.stoppedByTime());
    }

    @Test
    void boundedByTime() {
        long start = System.nanoTime();
        FuzzRunner.Report report = runner(CONFIG.withIterations(Long.MAX_VALUE).withTimeBudget(Duration.ofMillis(200)))
                .run(Random::nextInt, x -> Thread.sleep(1));
        long millis = (System.nanoTime() - start) / 1_000_000;
        assertTrue(report.stoppedByTime());
        assertTrue(report.iterations() > 0 && report.iterations() < 1000, "iterations " + report.iterations());
        assertTrue(millis < 5_000, millis + " ms");
    }

    @Test
    void sameSeedSameInputs() {
        List<byte[]> first = new ArrayList<>();
        List<byte[]> second = new ArrayList<>();
        List<byte[]> other = new ArrayList<>();
        runner(CONFIG.withSeed(99)).run(r -> Generators.bytes(r, 64), first::add);
        runner(CONFIG.withSeed(99)).run(r -> Generators.bytes(r, 64), second::add);
        runner(CONFIG.withSeed(100)).run(r -> Generators.bytes(r, 64), other::add);
        for (int i = 0; i < first.size(); i++) {
            assertArrayEquals(first.get(i), second.get(i));
        }
        assertFalse(Arrays.deepEquals(first.toArray(), other.toArray()));
    }

    @Test
    void failureNamesSeedIterationAndInputAndReplaysExactly() {
        // Fails on any array whose first byte is 0x42: rare enough to take a few hundred iterations.
        FuzzRunner.Property<byte[]> property = b -> {
            if (b.length > 2 && b[0] == 0x42) {
                throw new IndexOutOfBoundsException("planted: " + b.length);
            }
        };
        FuzzRunner.Config config = CONFIG.withIterations(100_000).withSeed(0x1234);
        AssertionError error = assertThrows(AssertionError.class, () -> runner(config).run(r -> Generators.bytes(r, 40), property));
        String message = error.getMessage();
        assertInstanceOf(IndexOutOfBoundsException.class, error.getCause());
        assertTrue(message.contains("seed 0x0000000000001234"), message);
        long iteration = Long.parseLong(message.replaceAll("(?s).*failed at iteration (\\d+).*", "$1"));
        String hex = message.replaceAll("(?s).*input:  \\(\\d+ bytes\\) ([0-9a-f]*)\n.*", "$1");
        assertTrue(hex.startsWith("42"), message);
        assertTrue(message.contains("-Drdmablock.fuzz.seed=0x0000000000001234 -Drdmablock.fuzz.iteration=" + iteration), message);
        assertTrue(message.contains("-Dtest='FuzzRunnerTest#harness'"), message);

        // Replaying that one iteration regenerates exactly the reported input.
        List<byte[]> replayed = new ArrayList<>();
        assertThrows(AssertionError.class, () -> runner(config.withOnlyIteration(iteration)).run(r -> Generators.bytes(r, 40), b -> {
            replayed.add(b);
            property.check(b);
        }));
        assertEquals(1, replayed.size());
        assertArrayEquals(HexFormat.of().parseHex(hex), replayed.getFirst());
    }

    @Test
    void shrinksToASmallInputOfTheSameFailure() {
        record Input(byte[] bytes, int other) {
        }

        FuzzRunner.Property<Input> property = in -> {
            for (byte b : in.bytes()) {
                if (b == 0x42) {
                    throw new IllegalStateException("0x42");
                }
            }
        };
        AssertionError error = assertThrows(AssertionError.class, () -> runner(CONFIG.withIterations(100_000)).run(
                r -> new Input(Generators.bytes(r, 100, 200), r.nextInt()),
                in -> Shrinkers.bytes(in.bytes()).map(b -> new Input(b, in.other())), property));
        assertTrue(error.getMessage().contains("bytes=(1 bytes) 42,"), error.getMessage());
        assertInstanceOf(IllegalStateException.class, error.getCause());
    }

    @Test
    void aHangingIterationIsReported() {
        AtomicBoolean release = new AtomicBoolean();
        try {
            AssertionError error = assertThrows(AssertionError.class, () -> runner(CONFIG.withHangTimeout(Duration.ofMillis(300)))
                    .run(r -> r.nextInt(50), x -> {
                        while (x == 7 && !release.get()) {
                            Thread.onSpinWait();
                        }
                    }));
            assertTrue(error.getMessage().contains("did not finish within"), error.getMessage());
            assertTrue(error.getMessage().contains("input:  7\n"), error.getMessage());
        } finally {
            release.set(true);
        }
    }

    @Test
    void describeRendersBytesAsHexInsideRecordsAndLists() {
        record Inner(byte[] data, int n) {
        }

        assertEquals("Inner[data=(2 bytes) 00ff, n=3]", FuzzRunner.describe(new Inner(new byte[]{0, -1}, 3)));
        assertEquals("[(1 bytes) 7f, x]", FuzzRunner.describe(List.of(new byte[]{0x7F}, "x")));
    }

    @Test
    void generatorsStayInRangeAndReachTheEnds() {
        Random r = new Random(1);
        boolean empty = false;
        boolean full = false;
        boolean min = false;
        boolean max = false;
        for (int i = 0; i < 2000; i++) {
            byte[] b = Generators.bytes(r, 3, 50);
            assertTrue(b.length >= 3 && b.length <= 50);
            empty |= Generators.bytes(r, 10).length == 0;
            full |= b.length == 50;
            int v = Generators.intBetween(r, -5, 5);
            assertTrue(v >= -5 && v <= 5);
            min |= v == -5;
            max |= v == 5;
        }
        assertTrue(empty && full && min && max);
        assertEquals(Integer.MAX_VALUE, Generators.intBetween(new Random(0), Integer.MAX_VALUE, Integer.MAX_VALUE));
    }

    @Test
    void shrinkersOnlyOfferSmallerOrSimplerValues() {
        byte[] input = {1, 2, 3, 4, 5};
        Shrinkers.bytes(input).forEach(b -> assertTrue(b.length < input.length
                || (b.length == input.length && Arrays.stream(new int[]{0, 1, 2, 3, 4}).filter(i -> b[i] == 0).count() == 1)));
        assertEquals(List.of(0, 5, 9), Shrinkers.toward(10, 0).boxed().toList());
        assertEquals(0, Shrinkers.bytes(new byte[0]).count());
    }

    @Test
    void everyMutatorDoesWhatItSays() {
        byte[] a = new byte[64];
        byte[] b = new byte[64];
        Arrays.fill(b, (byte) 0xBB);
        Mutations m = new Mutations(List.of(a, b), Mutations.SRP_FIELDS, Mutations.SRP_BOUNDARIES, 100, 6);
        Random r = new Random(5);
        for (int i = 0; i < 500; i++) {
            byte[] flipped = m.mutate(r, a, Mutations.Kind.BIT_FLIP);
            assertEquals(1, bitsDiffering(a, flipped));

            byte[] boundary = m.mutate(r, b, Mutations.Kind.BOUNDARY_BYTE);
            assertEquals(b.length, boundary.length);
            int changed = firstDifference(b, boundary);
            assertTrue(changed < 0 || Arrays.stream(Generators.INTERESTING_BYTES).anyMatch(v -> (byte) v == boundary[changed]));

            byte[] field = m.mutate(r, b, Mutations.Kind.FIELD_OVERWRITE);
            assertEquals(b.length, field.length);

            assertTrue(m.mutate(r, a, Mutations.Kind.TRUNCATE).length < a.length);
            int cut = m.mutate(r, a, Mutations.Kind.TRUNCATE_AT_BOUNDARY).length;
            assertTrue(Arrays.stream(Mutations.SRP_BOUNDARIES).anyMatch(x -> Math.abs(x - cut) <= 4) || cut == a.length, "cut " + cut);
            byte[] extended = m.mutate(r, a, Mutations.Kind.EXTEND);
            assertTrue(extended.length > a.length && extended.length <= 100);
            assertArrayEquals(a, Arrays.copyOf(extended, a.length));

            byte[] spliced = m.mutate(r, a, Mutations.Kind.SPLICE);
            int bAt = 0;
            while (bAt < spliced.length && spliced[bAt] == 0) {
                bAt++;
            }
            for (int j = bAt; j < spliced.length; j++) {
                assertEquals((byte) 0xBB, spliced[j], "a's head then b's tail");
            }
            assertTrue(m.mutate(r, a, Mutations.Kind.DELETE_BLOCK).length < a.length);
            assertEquals(a.length, m.mutate(r, a, Mutations.Kind.COPY_BLOCK).length);
            for (Mutations.Kind kind : Mutations.Kind.values()) {
                if (kind != Mutations.Kind.EXTEND && kind != Mutations.Kind.SPLICE) {
                    assertEquals(0, m.mutate(r, new byte[0], kind).length, kind.name());
                }
            }
        }
        // The boundary values and length-field extremes do show up.
        boolean[] values = new boolean[256];
        boolean lengthField = false;
        for (int i = 0; i < 5000; i++) {
            byte[] out = m.mutate(r, a, Mutations.Kind.BOUNDARY_BYTE);
            int at = firstDifference(a, out);
            if (at >= 0) {
                values[out[at] & 0xFF] = true;
            }
            byte[] f = m.mutate(r, a, Mutations.Kind.FIELD_OVERWRITE);
            lengthField |= f[60] == (byte) 0xFF && f[61] == (byte) 0xFF && f[62] == (byte) 0xFF && f[63] == (byte) 0xFF;
        }
        assertTrue(values[0xFF] && values[0x7F] && values[0x80], "0xFF, 0x7F, 0x80 (0x00 leaves a unchanged)");
        assertTrue(lengthField, "the descriptor length field at 60 set to 0xFFFFFFFF");
        // Mutated inputs differ from their seeds most of the time, and never exceed the maximum length.
        int same = 0;
        for (int i = 0; i < 1000; i++) {
            byte[] out = m.next(r);
            assertTrue(out.length <= 100);
            same += Arrays.equals(out, a) || Arrays.equals(out, b) ? 1 : 0;
        }
        assertTrue(same < 400, "unchanged " + same);
    }

    private static int bitsDiffering(byte[] x, byte[] y) {
        int bits = 0;
        for (int i = 0; i < x.length; i++) {
            bits += Integer.bitCount((x[i] ^ y[i]) & 0xFF);
        }
        return bits;
    }

    private static int firstDifference(byte[] x, byte[] y) {
        return Arrays.mismatch(x, y);
    }
}
