package org.rdmablock.target.srp;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

import java.util.Set;
import java.util.TreeSet;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The seam between the transport-neutral core and the SRP front end (target/README.md, "The core and the front
 * ends"): no class of the core depends on an SRP class, the SRP codecs of {@code protocol} included, so that a second
 * front end (NVMe over Fabrics) can sit on the same core. The core's classes share the package with the front end
 * for now; this list names them. {@code CommandPipeline} is where the two are put together, the one class that names
 * both.
 */
class CoreSpeaksNoSrpTest {
    private static final String PACKAGE = "org.rdmablock.target.srp";
    /** The core's classes (their nested classes too). */
    private static final Set<String> CORE = Set.of("BackendStage", "BlockingCalls", "Channel", "ChannelTable",
            "CommandSlot", "CommandStatistics", "CompletionPoller", "DataBufferPool", "DataDescriptor", "DataPhase",
            "DataRoom", "DirectPosts", "FrontEnd", "InPlaceRegions", "Intake", "IntakeInbox", "PipelineEvent",
            "PipelineExceptionHandler", "PipelineExecution", "PollerExecution", "QueuePairDirectory", "ReceiveBuffers",
            "ResponseEncoder", "ReturnedSlots", "RingExecution", "SendBatch", "SendPoster", "SlotPool",
            "WaitingRequests", "WorkRequestIds");

    private static final DescribedPredicate<JavaClass> IN_THE_CORE = DescribedPredicate.describe("in the core",
            c -> CORE.contains(topLevelName(c)));

    /** SRP's codecs, and the front end's classes here: SrpTarget, SrpFrontEnd, SrpChannel, ..., LoginNegotiation. */
    private static final DescribedPredicate<JavaClass> SRP = DescribedPredicate.describe("SRP's",
            c -> c.getBaseComponentType().getPackageName().startsWith("org.rdmablock.protocol.srp")
                    || c.getBaseComponentType().getPackageName().equals(PACKAGE)
                    && (topLevelName(c).startsWith("Srp") || topLevelName(c).equals("LoginNegotiation")));

    private static String topLevelName(final JavaClass type) {
        final JavaClass c = type.getBaseComponentType(); // an array's element type
        final String simple = c.getName().substring(c.getPackageName().length() + 1);
        final int nested = simple.indexOf('$');
        return nested < 0 ? simple : simple.substring(0, nested);
    }

    @Test
    void theCoreDependsOnNoSrpClass() {
        final JavaClasses classes = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages(PACKAGE, "org.rdmablock.protocol.srp");
        final Set<String> found = new TreeSet<>();
        for (final JavaClass c : classes) {
            if (c.getPackageName().equals(PACKAGE) && CORE.contains(topLevelName(c))) {
                found.add(topLevelName(c));
            }
        }
        assertEquals(new TreeSet<>(CORE), found, "every class the list names exists (a renamed one must be named anew)");
        noClasses().that(IN_THE_CORE).should().dependOnClassesThat(SRP).check(classes);
    }
}
