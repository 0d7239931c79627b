package org.rdmablock.tools.session;

import org.junit.jupiter.api.Test;
import org.rdmablock.initiator.InitiatorConfig;
import picocli.CommandLine;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code --connect-timeout}: the library's default when absent, the session's bound when given, refused when not positive. */
class TargetOptionsTest {
    @CommandLine.Command(name = "t")
    static final class Holder {
        @CommandLine.Mixin
        TargetOptions options;
    }

    private static TargetOptions parse(final String... args) {
        final Holder holder = new Holder();
        new CommandLine(holder).parseArgs(args);
        return holder.options;
    }

    @Test
    void theConnectTimeoutIsTheLibrarysDefaultOrTheOneGiven() {
        assertEquals(InitiatorConfig.DEFAULT_CONNECT_TIMEOUT, parse("--target", "127.0.0.1:5555").config(null).connectTimeout());
        assertEquals(Duration.ofSeconds(60), parse("--target", "127.0.0.1:5555", "--connect-timeout", "60s").config(null).connectTimeout());
        final IllegalArgumentException zero = assertThrows(IllegalArgumentException.class,
                () -> parse("--connect-timeout", "0s").config(null));
        assertTrue(zero.getMessage().contains("--connect-timeout"), zero.getMessage());
    }
}
