package org.rdmablock.protocol.fuzz;

import org.junit.jupiter.api.TestInfo;

import java.lang.reflect.RecordComponent;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;
import java.util.stream.Stream;

/**
 * A small, dependency-free fuzz harness for plain JUnit tests: it checks a property against generated
 * inputs for a bounded number of iterations <em>and</em> a bounded wall time, whichever ends first.
 *
 * <p>Every iteration draws its input from its own {@link Random}, seeded from the run's seed and the
 * iteration number, so one failing input can be replayed alone and exactly, whatever ran before it.
 * The run's seed is derived from the test's name (the same inputs on every run, so a CI failure
 * reproduces by running the test again) unless {@code -Drdmablock.fuzz.seed} gives one.
 *
 * <p>A failure is reported as an {@link AssertionError} naming the seed, the iteration, the input (byte
 * arrays as hex, also inside records), a shrunk input when a {@link Shrinker} is given, and the Maven
 * command lines that replay it. An iteration that runs longer than the hang timeout is reported the same
 * way (the property runs on a daemon worker thread, which is abandoned).
 *
 * <p>System properties (read by {@link Config#fromSystemProperties()}):
 * <ul>
 *   <li>{@value #ITERATIONS} — iterations per property (default {@value #DEFAULT_ITERATIONS});</li>
 *   <li>{@value #SECONDS} — wall-time budget per property, in seconds, fractions allowed; 0 or less for
 *       no time bound (default {@value #DEFAULT_SECONDS});</li>
 *   <li>{@value #SEED} — the run's seed: decimal, {@code 0x} hex, or {@code random} for a fresh one;</li>
 *   <li>{@value #ITERATION} — replay only this iteration of the run (with the seed printed on failure);</li>
 *   <li>{@value #HANG_SECONDS} — how long one iteration may run before it counts as a hang (default
 *       {@value #DEFAULT_HANG_SECONDS});</li>
 *   <li>{@value #LONG} — {@code true} for the long mode: by default {@value #LONG_ITERATIONS} iterations
 *       per property, no time bound and a fresh random seed; the run goes on past failures, counting
 *       escapes (exceptions, out-of-bounds accesses among them) and property failures, prints its seed,
 *       executions and findings, and fails at the end if there were any.</li>
 * </ul>
 */
public final class FuzzRunner {
    public static final String ITERATIONS = "rdmablock.fuzz.iterations";
    public static final String SECONDS = "rdmablock.fuzz.seconds";
    public static final String SEED = "rdmablock.fuzz.seed";
    public static final String ITERATION = "rdmablock.fuzz.iteration";
    public static final String HANG_SECONDS = "rdmablock.fuzz.hangSeconds";
    public static final String LONG = "rdmablock.fuzz.long";

    public static final long DEFAULT_ITERATIONS = 50_000;
    public static final double DEFAULT_SECONDS = 1.0;
    public static final double DEFAULT_HANG_SECONDS = 10.0;
    /** Iterations per property in the long mode unless {@value #ITERATIONS} says otherwise. */
    public static final long LONG_ITERATIONS = 10_000_000;

    /** In the long mode, the first failure of this many distinct kinds is kept (and shrunk) for the report. */
    private static final int KEPT_FAILURE_KINDS = 10;
    /** In the long mode, a progress line this often, so a run of many minutes shows it is alive. */
    private static final long PROGRESS_NANOS = Duration.ofSeconds(60).toNanos();
    /** Executions per fuzz target (a decoder, the engine) in this JVM, for the long mode's totals. */
    private static final Map<String, LongAdder> TARGET_TOTALS = new ConcurrentHashMap<>();

    /** Shrinking stops after this many property evaluations or this much time, whichever comes first. */
    private static final int SHRINK_ATTEMPTS = 5000;
    private static final long SHRINK_NANOS = Duration.ofSeconds(3).toNanos();

    /** Draws one input. */
    @FunctionalInterface
    public interface Generator<T> {
        T next(Random random);
    }

    /** The property: returns normally when it holds, throws (an assertion, any exception) when it does not. */
    @FunctionalInterface
    public interface Property<T> {
        void check(T input) throws Throwable;
    }

    /** Smaller (simpler) variants of a failing input, most aggressive first; see {@link Shrinkers}. */
    @FunctionalInterface
    public interface Shrinker<T> {
        Stream<T> candidates(T input);
    }

    /**
     * How long to run and with which seed.
     *
     * @param iterations   at most this many inputs
     * @param timeBudget   at most this long; {@link Duration#ZERO} for no time bound
     * @param seed         the run's seed, or {@code null} to derive it from the property's name
     * @param onlyIteration replay only this iteration, or {@code null}
     * @param hangTimeout  one iteration running longer than this is a failure
     * @param longMode     go on past failures, count them by kind and fail at the end (see {@value #LONG})
     */
    public record Config(long iterations, Duration timeBudget, Long seed, Long onlyIteration, Duration hangTimeout,
                         boolean longMode) {
        public Config {
            if (iterations < 0) {
                throw new IllegalArgumentException("iterations " + iterations);
            }
            if (timeBudget.isNegative()) {
                timeBudget = Duration.ZERO;
            }
            if (hangTimeout.isNegative() || hangTimeout.isZero()) {
                throw new IllegalArgumentException("hang timeout " + hangTimeout);
            }
        }

        /** A configuration in the default (CI) mode: stop at the first failure. */
        public Config(long iterations, Duration timeBudget, Long seed, Long onlyIteration, Duration hangTimeout) {
            this(iterations, timeBudget, seed, onlyIteration, hangTimeout, false);
        }

        public static Config fromSystemProperties() {
            return from(System::getProperty);
        }

        /** Reads the {@code rdmablock.fuzz.*} settings through {@code lookup} (null for an unset one). */
        static Config from(Function<String, String> lookup) {
            return from(lookup, DEFAULT_ITERATIONS);
        }

        /**
         * As {@link #from(Function)}, with {@code ciIterations} as the default iteration count outside the long
         * mode: a property whose inputs cost more, or whose input space is small, sets its own CI share.
         */
        static Config from(Function<String, String> lookup, long ciIterations) {
            String iterations = lookup.apply(ITERATIONS);
            String seconds = lookup.apply(SECONDS);
            String seed = lookup.apply(SEED);
            String only = lookup.apply(ITERATION);
            String hang = lookup.apply(HANG_SECONDS);
            boolean longMode = !blank(lookup.apply(LONG)) && parseBoolean(LONG, lookup.apply(LONG));
            // The long mode explores: many iterations, no time bound, a new seed each run (printed for replay).
            return new Config(
                    blank(iterations) ? (longMode ? LONG_ITERATIONS : ciIterations) : parseLong(ITERATIONS, iterations),
                    seconds(blank(seconds) ? (longMode ? 0 : DEFAULT_SECONDS) : parseDouble(SECONDS, seconds)),
                    parseSeed(seed, longMode),
                    blank(only) ? null : parseLong(ITERATION, only),
                    seconds(blank(hang) ? DEFAULT_HANG_SECONDS : parseDouble(HANG_SECONDS, hang)),
                    longMode);
        }

        public Config withIterations(long n) {
            return new Config(n, timeBudget, seed, onlyIteration, hangTimeout, longMode);
        }

        public Config withTimeBudget(Duration budget) {
            return new Config(iterations, budget, seed, onlyIteration, hangTimeout, longMode);
        }

        public Config withSeed(long s) {
            return new Config(iterations, timeBudget, s, onlyIteration, hangTimeout, longMode);
        }

        public Config withOnlyIteration(long i) {
            return new Config(iterations, timeBudget, seed, i, hangTimeout, longMode);
        }

        public Config withHangTimeout(Duration timeout) {
            return new Config(iterations, timeBudget, seed, onlyIteration, timeout, longMode);
        }

        public Config withLongMode(boolean on) {
            return new Config(iterations, timeBudget, seed, onlyIteration, hangTimeout, on);
        }

        private static boolean blank(String s) {
            return s == null || s.isBlank();
        }

        private static Duration seconds(double s) {
            return s <= 0 ? Duration.ZERO : Duration.ofNanos((long) (s * 1e9));
        }

        private static long parseLong(String name, String value) {
            String v = value.strip().replace("_", "");
            try {
                return v.startsWith("0x") || v.startsWith("0X") ? Long.parseUnsignedLong(v.substring(2), 16) : Long.parseLong(v);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("-D" + name + "=" + value + " is not a number", e);
            }
        }

        /** The configured seed; null (derive it from the test's name) unless given, or a random one for the long mode. */
        private static Long parseSeed(String seed, boolean longMode) {
            if (blank(seed)) {
                return longMode ? new SecureRandom().nextLong() : null;
            }
            return seed.strip().equalsIgnoreCase("random") ? new SecureRandom().nextLong() : parseLong(SEED, seed);
        }

        private static boolean parseBoolean(String name, String value) {
            return switch (value.strip().toLowerCase(java.util.Locale.ROOT)) {
                case "true" -> true;
                case "false" -> false;
                default -> throw new IllegalArgumentException("-D" + name + "=" + value + " is not true or false");
            };
        }

        private static double parseDouble(String name, String value) {
            try {
                return Double.parseDouble(value.strip());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("-D" + name + "=" + value + " is not a number", e);
            }
        }
    }

    /** What a passing run did. */
    public record Report(String name, long seed, long iterations, Duration elapsed, boolean stoppedByTime) {
        @Override
        public String toString() {
            return String.format("fuzz %s: %d iterations in %.2f s%s, seed %s", name, iterations, elapsed.toNanos() / 1e9,
                    stoppedByTime ? " (time budget reached)" : "", hex(seed));
        }
    }

    /**
     * The long mode's tally. An escape is a throwable other than an assertion leaving the property: the
     * code under test threw, and an {@link IndexOutOfBoundsException} means it read or wrote outside the
     * bytes it was given. A property failure is an assertion of the property that did not hold.
     */
    public record Findings(long executions, long outOfBounds, long otherExceptions, long propertyFailures) {
        public long escapes() {
            return outOfBounds + otherExceptions;
        }

        public long total() {
            return escapes() + propertyFailures;
        }

        @Override
        public String toString() {
            return String.format("%d escapes (%d out-of-bounds accesses, %d other exceptions), %d property failures",
                    escapes(), outOfBounds, otherExceptions, propertyFailures);
        }
    }

    private final String name;
    private final String testSelector;
    private final Config config;
    private final String target;

    /**
     * @param name         names the property in reports; the default seed is derived from it
     * @param testSelector the surefire {@code -Dtest=} value that runs this property, for the replay hint
     *                     (null for none)
     */
    public FuzzRunner(String name, String testSelector, Config config) {
        this(name, testSelector, config, null);
    }

    /** As above; {@code target} names the code under test, whose executions the long mode totals (null for none). */
    public FuzzRunner(String name, String testSelector, Config config, String target) {
        this.name = name;
        this.testSelector = testSelector;
        this.config = config;
        this.target = target;
    }

    /** A runner for the current test method, configured by the {@code rdmablock.fuzz.*} system properties. */
    public static FuzzRunner forTest(TestInfo test) {
        return forTest(test, null);
    }

    /** As {@link #forTest(TestInfo)}, naming the fuzz target (the decoder or engine the property drives). */
    public static FuzzRunner forTest(TestInfo test, String target) {
        return forTest(test, target, DEFAULT_ITERATIONS);
    }

    /**
     * As {@link #forTest(TestInfo, String)}, running {@code ciIterations} iterations by default (the CI run);
     * {@value #ITERATIONS} and the long mode override it.
     */
    public static FuzzRunner forTest(TestInfo test, String target, long ciIterations) {
        String className = test.getTestClass().map(Class::getSimpleName).orElse("?");
        String method = test.getTestMethod().map(java.lang.reflect.Method::getName).orElse(test.getDisplayName());
        String selector = className + "#" + method;
        return new FuzzRunner(selector, selector, Config.from(System::getProperty, ciIterations), target);
    }

    /** Executions of {@code target} by long-mode runs in this JVM so far. */
    public static long targetTotal(String target) {
        LongAdder total = TARGET_TOTALS.get(target);
        return total == null ? 0 : total.sum();
    }

    public Config config() {
        return config;
    }

    /** The seed this runner uses: the configured one, or one derived from the name (FNV-1a, 64-bit). */
    public long seed() {
        if (config.seed() != null) {
            return config.seed();
        }
        long h = 0xcbf2_9ce4_8422_2325L;
        for (byte b : name.getBytes(StandardCharsets.UTF_8)) {
            h = (h ^ (b & 0xFF)) * 0x0000_0100_0000_01B3L;
        }
        return h;
    }

    /** The random source of one iteration: a pure function of the run's seed and the iteration number. */
    public static Random randomFor(long seed, long iteration) {
        // SplitMix64's finalizer over a Weyl sequence: well-spread seeds for neighbouring iterations.
        long z = seed + (iteration + 1) * 0x9E37_79B9_7F4A_7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58_476D_1CE4_E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D0_49BB_1331_11EBL;
        return new Random(z ^ (z >>> 31));
    }

    public <T> Report run(Generator<T> generator, Property<T> property) {
        return run(generator, null, property);
    }

    /**
     * Checks {@code property} against inputs from {@code generator} until the iteration count or the time
     * budget runs out; prints a one-line summary. On the first failure, shrinks the input with
     * {@code shrinker} (if not null) and throws an {@link AssertionError} that says how to replay it.
     */
    public <T> Report run(Generator<T> generator, Shrinker<T> shrinker, Property<T> property) {
        long seed = seed();
        Loop<T> loop = new Loop<>(generator, property, seed, config);
        Thread worker = Thread.ofPlatform().daemon().name("fuzz " + name).unstarted(loop);
        long start = System.nanoTime();
        worker.start();
        long hangNanos = config.hangTimeout().toNanos();
        long nextProgress = start + PROGRESS_NANOS;
        try {
            while (worker.isAlive()) {
                worker.join(Duration.ofMillis(20));
                if (loop.keepGoing && System.nanoTime() > nextProgress) {
                    nextProgress += PROGRESS_NANOS;
                    System.out.printf("fuzz long %s: %d executions, %d failures so far (seed %s)%n", name, loop.iteration,
                            loop.failuresSoFar, hex(seed));
                }
                long began = loop.iterationStart;
                if (worker.isAlive() && began != 0 && System.nanoTime() - began > hangNanos) {
                    long iteration = loop.iteration;
                    // The hung worker keeps running; regenerate the input here to report it.
                    T input = generator.next(randomFor(seed, iteration));
                    Throwable hang = new AssertionError("iteration did not finish within " + config.hangTimeout()
                            + " (the worker thread '" + worker.getName() + "' is abandoned)");
                    hang.setStackTrace(worker.getStackTrace());
                    loop.abandoned = true;
                    throw failure(seed, iteration, input, null, 0, hang);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while fuzzing " + name, e);
        }
        Duration elapsed = Duration.ofNanos(System.nanoTime() - start);
        if (loop.keepGoing) {
            return longModeResult(seed, loop, elapsed, shrinker, property);
        }
        if (loop.failure != null) {
            T input = loop.failingInput;
            Shrunk<T> shrunk = shrinker == null ? null : shrink(input, loop.failure, shrinker, property);
            throw failure(seed, loop.failingIteration, input, shrunk == null ? null : shrunk.input, shrunk == null ? 0 : shrunk.steps,
                    shrunk == null ? loop.failure : shrunk.failure);
        }
        Report report = new Report(name, seed, loop.done, elapsed, loop.stoppedByTime);
        System.out.println(report);
        return report;
    }

    /** Prints the long mode's summary; throws, listing each kind of failure with its replay command, if any. */
    private <T> Report longModeResult(long seed, Loop<T> loop, Duration elapsed, Shrinker<T> shrinker, Property<T> property) {
        Findings findings = new Findings(loop.done, loop.outOfBounds, loop.otherExceptions, loop.propertyFailures);
        String totals = "";
        if (target != null) {
            TARGET_TOTALS.computeIfAbsent(target, t -> new LongAdder()).add(loop.done);
            totals = String.format("; %s: %d executions so far in this run", target, targetTotal(target));
        }
        double seconds = elapsed.toNanos() / 1e9;
        String summary = String.format("fuzz long %s%s: %d executions in %.1f s (%.0f/s)%s, seed %s: %s%s", name,
                target == null ? "" : " [" + target + "]", loop.done, seconds, loop.done / Math.max(seconds, 1e-9),
                loop.stoppedByTime ? " (time budget reached)" : "", hex(seed), findings, totals);
        System.out.println(summary);
        if (findings.total() == 0) {
            return new Report(name, seed, loop.done, elapsed, loop.stoppedByTime);
        }
        StringBuilder m = new StringBuilder(summary).append('\n');
        int n = 0;
        for (FailureKind<T> kind : loop.failureKinds.values()) {
            Shrunk<T> shrunk = shrinker == null ? null : shrink(kind.input, kind.cause, shrinker, property);
            m.append(String.format("  [%d] %d x %s, first at iteration %d%n", ++n, kind.count, kind.signature, kind.iteration));
            m.append(failure(seed, kind.iteration, kind.input, shrunk == null ? null : shrunk.input, shrunk == null ? 0 : shrunk.steps,
                    shrunk == null ? kind.cause : shrunk.failure).getMessage().indent(6));
        }
        if (loop.unkeptFailures > 0) {
            m.append("  and ").append(loop.unkeptFailures).append(" failures of further kinds (only the first ")
                    .append(KEPT_FAILURE_KINDS).append(" kinds are kept)\n");
        }
        throw new AssertionError(m.toString(), loop.failureKinds.values().iterator().next().cause);
    }

    /** The generate-and-check loop, on the worker thread. */
    private static final class Loop<T> implements Runnable {
        private final Generator<T> generator;
        private final Property<T> property;
        private final long seed;
        private final Config config;
        volatile long iteration;
        volatile long iterationStart;
        /** Set when the run is given up on (a hang): the worker stops after the iteration it is stuck in. */
        volatile boolean abandoned;
        long done;
        boolean stoppedByTime;
        long failingIteration = -1;
        T failingInput;
        Throwable failure;
        /** Long mode (not when replaying one iteration): record failures and go on. */
        final boolean keepGoing;
        final Map<String, FailureKind<T>> failureKinds = new LinkedHashMap<>();
        long outOfBounds;
        long otherExceptions;
        long propertyFailures;
        long unkeptFailures;
        volatile long failuresSoFar;

        Loop(Generator<T> generator, Property<T> property, long seed, Config config) {
            this.generator = generator;
            this.property = property;
            this.seed = seed;
            this.config = config;
            this.keepGoing = config.longMode() && config.onlyIteration() == null;
        }

        private void record(long iteration, T input, Throwable t) {
            if (t instanceof AssertionError) {
                propertyFailures++;
            } else if (t instanceof IndexOutOfBoundsException) {
                outOfBounds++;
            } else {
                otherExceptions++;
            }
            failuresSoFar++;
            String signature = signature(t);
            FailureKind<T> kind = failureKinds.get(signature);
            if (kind != null) {
                kind.count++;
            } else if (failureKinds.size() < KEPT_FAILURE_KINDS) {
                failureKinds.put(signature, new FailureKind<>(signature, iteration, input, t));
            } else {
                unkeptFailures++;
            }
        }

        @Override
        public void run() {
            long first = config.onlyIteration() != null ? config.onlyIteration() : 0;
            long end = config.onlyIteration() != null ? first + 1 : config.iterations();
            long budget = config.onlyIteration() != null ? 0 : config.timeBudget().toNanos();
            long start = System.nanoTime();
            for (long i = first; i < end && !abandoned; i++) {
                if (budget > 0 && i > first && System.nanoTime() - start >= budget) {
                    stoppedByTime = true;
                    break;
                }
                iteration = i;
                iterationStart = System.nanoTime() | 1;
                T input = null;
                try {
                    input = generator.next(randomFor(seed, i));
                    property.check(input);
                } catch (Throwable t) {
                    if (keepGoing) {
                        record(i, input, t);
                        done++;
                        continue;
                    }
                    failingIteration = i;
                    failingInput = input;
                    failure = t;
                    return;
                } finally {
                    iterationStart = 0;
                }
                done++;
            }
        }
    }

    /** The first failure of one kind (throwable class and where it was thrown) and how often the kind occurred. */
    private static final class FailureKind<T> {
        final String signature;
        final long iteration;
        final T input;
        final Throwable cause;
        long count = 1;

        FailureKind(String signature, long iteration, T input, Throwable cause) {
            this.signature = signature;
            this.iteration = iteration;
            this.input = input;
            this.cause = cause;
        }
    }

    /**
     * The throwable's class and its first two frames in this project's code: where it was thrown or asserted,
     * and the caller, which tells apart two bugs that fail in the same accessor.
     */
    static String signature(Throwable t) {
        StringBuilder b = new StringBuilder(t.getClass().getName());
        int frames = 0;
        for (StackTraceElement frame : t.getStackTrace()) {
            if (frame.getClassName().startsWith("org.rdmablock.") && !frame.getClassName().startsWith(FuzzRunner.class.getName())) {
                b.append(frames == 0 ? " at " : " < ").append(frame);
                if (++frames == 2) {
                    break;
                }
            }
        }
        return b.toString();
    }

    private record Shrunk<T>(T input, int steps, Throwable failure) {
    }

    /**
     * Greedy shrinking: take the first candidate that still fails with the same kind of throwable, start
     * again from it, stop when no candidate fails or the attempt or time limit is reached. Runs on the
     * caller's thread; a property that hangs on a candidate hangs here, which the original run did not.
     */
    private static <T> Shrunk<T> shrink(T input, Throwable failure, Shrinker<T> shrinker, Property<T> property) {
        Class<?> kind = failure.getClass();
        T current = input;
        Throwable currentFailure = failure;
        int steps = 0;
        int attempts = 0;
        long deadline = System.nanoTime() + SHRINK_NANOS;
        boolean progress = true;
        while (progress && attempts < SHRINK_ATTEMPTS && System.nanoTime() < deadline) {
            progress = false;
            for (T candidate : (Iterable<T>) shrinker.candidates(current)::iterator) {
                if (attempts++ >= SHRINK_ATTEMPTS || System.nanoTime() >= deadline) {
                    break;
                }
                try {
                    property.check(candidate);
                } catch (Throwable t) {
                    if (t.getClass() == kind) {
                        current = candidate;
                        currentFailure = t;
                        steps++;
                        progress = true;
                        break;
                    }
                }
            }
        }
        return steps == 0 ? null : new Shrunk<>(current, steps, currentFailure);
    }

    private <T> AssertionError failure(long seed, long iteration, T input, T shrunk, int steps, Throwable cause) {
        StringBuilder m = new StringBuilder();
        m.append("fuzz property ").append(name).append(" failed at iteration ").append(iteration)
                .append(" (seed ").append(hex(seed)).append(")\n");
        m.append("  cause:  ").append(cause).append('\n');
        m.append("  input:  ").append(describe(input)).append('\n');
        if (shrunk != null) {
            m.append("  shrunk (").append(steps).append(" steps): ").append(describe(shrunk)).append('\n');
        }
        String test = testSelector == null ? "<test>" : testSelector;
        String mvn = "mvn -B -ntp -pl protocol test -Dtest='" + test + "' -D" + SEED + "=" + hex(seed);
        m.append("  replay this input: ").append(mvn).append(" -D").append(ITERATION).append('=').append(iteration).append('\n');
        m.append("  replay the run:    ").append(mvn).append(" -D").append(ITERATIONS).append('=').append(iteration + 1)
                .append(" -D").append(SECONDS).append("=0");
        return new AssertionError(m.toString(), cause);
    }

    public static String hex(long value) {
        return "0x" + HexFormat.of().toHexDigits(value);
    }

    /** Renders an input for a report: byte arrays as hex, records and lists element by element. */
    public static String describe(Object input) {
        if (input == null) {
            return "null";
        }
        if (input instanceof byte[] bytes) {
            return "(" + bytes.length + " bytes) " + HexFormat.of().formatHex(bytes);
        }
        if (input instanceof List<?> list) {
            List<String> parts = new ArrayList<>(list.size());
            for (Object o : list) {
                parts.add(describe(o));
            }
            return parts.toString();
        }
        Class<?> type = input.getClass();
        if (type.isRecord()) {
            StringBuilder b = new StringBuilder(type.getSimpleName()).append('[');
            RecordComponent[] components = type.getRecordComponents();
            for (int i = 0; i < components.length; i++) {
                if (i > 0) {
                    b.append(", ");
                }
                Object value;
                try {
                    var accessor = components[i].getAccessor();
                    accessor.setAccessible(true);
                    value = accessor.invoke(input);
                } catch (ReflectiveOperationException | RuntimeException e) {
                    value = "<" + e + ">";
                }
                b.append(components[i].getName()).append('=').append(describe(value));
            }
            return b.append(']').toString();
        }
        return String.valueOf(input);
    }
}
