package org.rdmablock.verbs.conformance;

import java.util.stream.Stream;

import org.junit.jupiter.params.provider.Arguments;
import org.rdmablock.verbs.QueuePairType;

/** Argument sources of the parameterized conformance tests. */
final class Fixtures {
    private Fixtures() {
    }

    static Stream<ProviderFixture> providers() {
        return ProviderFixture.selected().stream();
    }

    /** RC for every provider; UC where the provider's connection manager can connect UC QPs. */
    static Stream<Arguments> connectedTransports() {
        return providers().flatMap(f -> f.ucThroughConnectionManager()
            ? Stream.of(Arguments.of(f, QueuePairType.RC), Arguments.of(f, QueuePairType.UC))
            : Stream.of(Arguments.of(f, QueuePairType.RC)));
    }

    static Stream<Arguments> readSizes() {
        return providers().flatMap(f -> Stream.of(0, 1, 4096, 70_000, 1 << 20).map(size -> Arguments.of(f, size)));
    }
}
