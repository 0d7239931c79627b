package org.rdmablock.target.core;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import org.junit.jupiter.api.Test;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The seam between the transport-neutral core and the SRP front end (target/README.md, "The core and the front
 * ends"): no class of the core's package depends on a class of the SRP front end's package or on the SRP codecs of
 * {@code protocol}, so that a second front end (NVMe over Fabrics) can sit on the same core. The SRP target gives the
 * core its front end ({@link FrontEnd.Factory}); the core never names it.
 */
class CoreSpeaksNoSrpTest {
    private static final String CORE = "org.rdmablock.target.core";

    @Test
    void theCoreDependsOnNoSrpClass() {
        // the build's output is target/build (ArchUnit's DO_NOT_INCLUDE_TESTS looks for target/test-classes)
        final JavaClasses classes = new ClassFileImporter().withImportOption(location -> !location.contains("/test-classes/"))
                .importPackages("org.rdmablock.target", "org.rdmablock.protocol");
        assertTrue(classes.contain(CommandPipeline.class) && classes.contain(Intake.class),
                "the core's classes were imported (a rule over no classes passes whatever it says)");
        noClasses().that().resideInAPackage(CORE + "..")
                .should().dependOnClassesThat().resideInAnyPackage("org.rdmablock.target.srp..", "org.rdmablock.protocol.srp..")
                .check(classes);
    }
}
