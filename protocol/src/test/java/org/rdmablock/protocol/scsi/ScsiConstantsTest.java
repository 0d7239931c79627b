package org.rdmablock.protocol.scsi;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The SCSI wire constants against literals copied from Linux, never from our own constants: status codes,
 * sense keys and operation codes from {@code include/scsi/scsi_proto.h}, additional sense codes from
 * {@code drivers/scsi/sense_codes.h}, the sense key each condition is reported with from
 * {@code drivers/target/target_core_transport.c} ({@code sense_detail_table}) or SPC-4/SBC-3 where LIO
 * has no entry, and the sense data framing from {@code drivers/scsi/scsi_common.c}
 * ({@code scsi_build_sense_buffer}). Every constant of {@link ScsiStatus}, {@link SenseKey},
 * {@link ScsiOpcode} and every {@link SenseCode} must have a row here.
 */
class ScsiConstantsTest {
    private record Pin(Class<?> owner, String field, long literal, String source) {
    }

    private static Pin pin(Class<?> owner, String field, long literal, String source) {
        return new Pin(owner, field, literal, source);
    }

    // include/scsi/scsi_proto.h: enum sam_status.
    private static final List<Pin> STATUS = List.of(
            pin(ScsiStatus.class, "GOOD", 0x00, "SAM_STAT_GOOD"),
            pin(ScsiStatus.class, "CHECK_CONDITION", 0x02, "SAM_STAT_CHECK_CONDITION"),
            pin(ScsiStatus.class, "CONDITION_MET", 0x04, "SAM_STAT_CONDITION_MET"),
            pin(ScsiStatus.class, "BUSY", 0x08, "SAM_STAT_BUSY"),
            pin(ScsiStatus.class, "RESERVATION_CONFLICT", 0x18, "SAM_STAT_RESERVATION_CONFLICT"),
            pin(ScsiStatus.class, "TASK_SET_FULL", 0x28, "SAM_STAT_TASK_SET_FULL"),
            pin(ScsiStatus.class, "ACA_ACTIVE", 0x30, "SAM_STAT_ACA_ACTIVE"),
            pin(ScsiStatus.class, "TASK_ABORTED", 0x40, "SAM_STAT_TASK_ABORTED"));

    // include/scsi/scsi_proto.h: "SENSE KEYS".
    private static final List<Pin> SENSE_KEYS = List.of(
            pin(SenseKey.class, "NO_SENSE", 0x00, "NO_SENSE"),
            pin(SenseKey.class, "RECOVERED_ERROR", 0x01, "RECOVERED_ERROR"),
            pin(SenseKey.class, "NOT_READY", 0x02, "NOT_READY"),
            pin(SenseKey.class, "MEDIUM_ERROR", 0x03, "MEDIUM_ERROR"),
            pin(SenseKey.class, "HARDWARE_ERROR", 0x04, "HARDWARE_ERROR"),
            pin(SenseKey.class, "ILLEGAL_REQUEST", 0x05, "ILLEGAL_REQUEST"),
            pin(SenseKey.class, "UNIT_ATTENTION", 0x06, "UNIT_ATTENTION"),
            pin(SenseKey.class, "DATA_PROTECT", 0x07, "DATA_PROTECT"),
            pin(SenseKey.class, "COPY_ABORTED", 0x0a, "COPY_ABORTED"),
            pin(SenseKey.class, "ABORTED_COMMAND", 0x0b, "ABORTED_COMMAND"),
            pin(SenseKey.class, "MISCOMPARE", 0x0e, "MISCOMPARE"));

    // include/scsi/scsi_proto.h: "SCSI opcodes", "values for service action in", "values for maintenance in".
    private static final List<Pin> OPCODES = List.of(
            pin(ScsiOpcode.class, "TEST_UNIT_READY", 0x00, "TEST_UNIT_READY"),
            pin(ScsiOpcode.class, "REQUEST_SENSE", 0x03, "REQUEST_SENSE"),
            pin(ScsiOpcode.class, "READ_6", 0x08, "READ_6"),
            pin(ScsiOpcode.class, "WRITE_6", 0x0a, "WRITE_6"),
            pin(ScsiOpcode.class, "INQUIRY", 0x12, "INQUIRY"),
            pin(ScsiOpcode.class, "MODE_SELECT_6", 0x15, "MODE_SELECT"),
            pin(ScsiOpcode.class, "MODE_SENSE_6", 0x1a, "MODE_SENSE"),
            pin(ScsiOpcode.class, "RESERVE_6", 0x16, "RESERVE"),
            pin(ScsiOpcode.class, "RELEASE_6", 0x17, "RELEASE"),
            pin(ScsiOpcode.class, "START_STOP_UNIT", 0x1b, "START_STOP"),
            pin(ScsiOpcode.class, "PREVENT_ALLOW_MEDIUM_REMOVAL", 0x1e, "ALLOW_MEDIUM_REMOVAL"),
            pin(ScsiOpcode.class, "READ_CAPACITY_10", 0x25, "READ_CAPACITY"),
            pin(ScsiOpcode.class, "READ_10", 0x28, "READ_10"),
            pin(ScsiOpcode.class, "WRITE_10", 0x2a, "WRITE_10"),
            pin(ScsiOpcode.class, "VERIFY_10", 0x2f, "VERIFY"),
            pin(ScsiOpcode.class, "SYNCHRONIZE_CACHE_10", 0x35, "SYNCHRONIZE_CACHE"),
            pin(ScsiOpcode.class, "WRITE_SAME_10", 0x41, "WRITE_SAME"),
            pin(ScsiOpcode.class, "UNMAP", 0x42, "UNMAP"),
            pin(ScsiOpcode.class, "MODE_SELECT_10", 0x55, "MODE_SELECT_10"),
            pin(ScsiOpcode.class, "MODE_SENSE_10", 0x5a, "MODE_SENSE_10"),
            pin(ScsiOpcode.class, "PERSISTENT_RESERVE_IN", 0x5e, "PERSISTENT_RESERVE_IN"),
            pin(ScsiOpcode.class, "PERSISTENT_RESERVE_OUT", 0x5f, "PERSISTENT_RESERVE_OUT"),
            pin(ScsiOpcode.class, "EXTENDED_COPY", 0x83, "EXTENDED_COPY"),
            pin(ScsiOpcode.class, "RECEIVE_COPY_RESULTS", 0x84, "RECEIVE_COPY_RESULTS"),
            pin(ScsiOpcode.class, "READ_16", 0x88, "READ_16"),
            pin(ScsiOpcode.class, "COMPARE_AND_WRITE", 0x89, "COMPARE_AND_WRITE"),
            pin(ScsiOpcode.class, "WRITE_16", 0x8a, "WRITE_16"),
            pin(ScsiOpcode.class, "VERIFY_16", 0x8f, "VERIFY_16"),
            pin(ScsiOpcode.class, "SYNCHRONIZE_CACHE_16", 0x91, "SYNCHRONIZE_CACHE_16"),
            pin(ScsiOpcode.class, "WRITE_SAME_16", 0x93, "WRITE_SAME_16"),
            pin(ScsiOpcode.class, "SERVICE_ACTION_IN_16", 0x9e, "SERVICE_ACTION_IN_16"),
            pin(ScsiOpcode.class, "REPORT_LUNS", 0xa0, "REPORT_LUNS"),
            pin(ScsiOpcode.class, "MAINTENANCE_IN", 0xa3, "MAINTENANCE_IN"),
            pin(ScsiOpcode.class, "READ_12", 0xa8, "READ_12"),
            pin(ScsiOpcode.class, "WRITE_12", 0xaa, "WRITE_12"),
            pin(ScsiOpcode.class, "SA_READ_CAPACITY_16", 0x10, "SAI_READ_CAPACITY_16"),
            pin(ScsiOpcode.class, "SA_GET_LBA_STATUS", 0x12, "SAI_GET_LBA_STATUS"),
            pin(ScsiOpcode.class, "SA_REPORT_SUPPORTED_OPERATION_CODES", 0x0c, "MI_REPORT_SUPPORTED_OPERATION_CODES"),
            pin(ScsiOpcode.class, "SA_REPORT_TARGET_PORT_GROUPS", 0x0a, "MI_REPORT_TARGET_PGS"),
            pin(ScsiOpcode.class, "SA_EXTENDED_COPY_LID1", 0x00, "target_core_xcopy.c target_do_xcopy: sa 0x00, else LID4"),
            pin(ScsiOpcode.class, "SA_RECEIVE_COPY_OPERATING_PARAMETERS", 0x03, "target_core_xcopy.h RCR_SA_OPERATING_PARAMETERS"));

    // Sense data framing, drivers/scsi/scsi_common.c scsi_build_sense_buffer(): buf[0] = 0x70 "fixed, current",
    // 0x72 "descriptor, current", and buf[7] = 0xa additional bytes after the 8-byte header. The 252-byte
    // maximum is SPC-4 4.5.1 (an 8-byte header and an ADDITIONAL SENSE LENGTH of at most 244). The longest
    // CDB is include/scsi/scsi_proto.h SCSI_MAX_VARLEN_CDB_SIZE; "no logical unit" is TYPE_NO_LUN.
    private static final List<Pin> FRAMING = List.of(
            pin(SenseData.class, "RESPONSE_FIXED_CURRENT", 0x70, "scsi_build_sense_buffer buf[0] = 0x70"),
            pin(SenseData.class, "RESPONSE_DESCRIPTOR_CURRENT", 0x72, "scsi_build_sense_buffer buf[0] = 0x72"),
            pin(SenseData.class, "FIXED_LENGTH", 18, "scsi_build_sense_buffer: 8 + buf[7] = 0xa"),
            pin(SenseData.class, "MAX_LENGTH", 252, "SPC-4 4.5.1: 8 + 244"),
            pin(ScsiCommand.class, "MAX_CDB_LENGTH", 260, "SCSI_MAX_VARLEN_CDB_SIZE"),
            pin(InquiryData.class, "NO_LOGICAL_UNIT", 0x7f, "TYPE_NO_LUN"));

    /** One condition: sense key, ASC and ASCQ, with where the pairing is from. */
    private record Condition(SenseCode code, int key, int ascAscq, String source) {
    }

    // ASC/ASCQ: drivers/scsi/sense_codes.h SENSE_CODE(0xAAQQ, ...). Key: target_core_transport.c's
    // sense_detail_table entry named, else the SPC-4 / SBC-3 rule given.
    private static final List<Condition> CONDITIONS = List.of(
            new Condition(SenseCode.NO_ADDITIONAL_SENSE, 0x00, 0x0000, "\"No additional sense information\"; NO SENSE"),
            new Condition(SenseCode.PARAMETER_LIST_LENGTH_ERROR, 0x05, 0x1A00, "\"Parameter list length error\"; TCM_PARAMETER_LIST_LENGTH_ERROR"),
            new Condition(SenseCode.INVALID_COMMAND_OPERATION_CODE, 0x05, 0x2000, "\"Invalid command operation code\"; TCM_UNSUPPORTED_SCSI_OPCODE"),
            new Condition(SenseCode.LBA_OUT_OF_RANGE, 0x05, 0x2100, "\"Logical block address out of range\"; TCM_ADDRESS_OUT_OF_RANGE"),
            new Condition(SenseCode.INVALID_FIELD_IN_CDB, 0x05, 0x2400, "\"Invalid field in cdb\"; TCM_INVALID_CDB_FIELD"),
            new Condition(SenseCode.LOGICAL_UNIT_NOT_SUPPORTED, 0x05, 0x2500, "\"Logical unit not supported\"; TCM_NON_EXISTENT_LUN"),
            new Condition(SenseCode.INVALID_FIELD_IN_PARAMETER_LIST, 0x05, 0x2600, "\"Invalid field in parameter list\"; TCM_INVALID_PARAMETER_LIST"),
            new Condition(SenseCode.SAVING_PARAMETERS_NOT_SUPPORTED, 0x05, 0x3900, "\"Saving parameters not supported\"; SPC-4 MODE SENSE PC 11b: ILLEGAL REQUEST"),
            new Condition(SenseCode.WRITE_PROTECTED, 0x07, 0x2700, "\"Write protected\"; TCM_WRITE_PROTECTED"),
            new Condition(SenseCode.SPACE_ALLOCATION_FAILED_WRITE_PROTECT, 0x07, 0x2707, "\"Space allocation failed write protect\"; TCM_SPACE_ALLOCATION_FAILED"),
            new Condition(SenseCode.WRITE_ERROR, 0x03, 0x0C00, "\"Write error\"; SBC-3: a medium write failure is MEDIUM ERROR"),
            new Condition(SenseCode.UNRECOVERED_READ_ERROR, 0x03, 0x1100, "\"Unrecovered read error\"; SBC-3: MEDIUM ERROR"),
            new Condition(SenseCode.MISCOMPARE_DURING_VERIFY_OPERATION, 0x0E, 0x1D00, "\"Miscompare during verify operation\"; TCM_MISCOMPARE_VERIFY"),
            new Condition(SenseCode.INTERNAL_TARGET_FAILURE, 0x04, 0x4400, "\"Internal target failure\"; SPC-4: HARDWARE ERROR"),
            new Condition(SenseCode.INVALID_FIELD_IN_COMMAND_INFORMATION_UNIT, 0x05, 0x0E03, "\"Invalid field in command information unit\"; SPC-4 annex D: ILLEGAL REQUEST"),
            new Condition(SenseCode.DATA_PHASE_ERROR, 0x0B, 0x4B00, "\"Data phase error\"; SPC-4: ABORTED COMMAND (a transport's data transfer failed)"),
            new Condition(SenseCode.COMMAND_TIMEOUT_DURING_PROCESSING, 0x0B, 0x2E02, "\"Command timeout during processing\"; SPC-5 annex F: ABORTED COMMAND"),
            new Condition(SenseCode.REPORTED_LUNS_DATA_HAS_CHANGED, 0x06, 0x3F0E, "\"Reported luns data has changed\"; LIO ASC_REPORTED_LUNS_DATA_CHANGED (a UNIT ATTENTION)"),
            new Condition(SenseCode.CAPACITY_DATA_HAS_CHANGED, 0x06, 0x2A09, "\"Capacity data has changed\"; LIO ASCQ_2AH_CAPACITY_DATA_HAS_CHANGED (a UNIT ATTENTION)"),
            new Condition(SenseCode.MODE_PARAMETERS_CHANGED, 0x06, 0x2A01, "\"Mode parameters changed\"; LIO ASCQ_2AH_MODE_PARAMETERS_CHANGED (a UNIT ATTENTION)"),
            new Condition(SenseCode.RESERVATIONS_PREEMPTED, 0x06, 0x2A03, "\"Reservations preempted\"; LIO ASCQ_2AH_RESERVATIONS_PREEMPTED (a UNIT ATTENTION)"),
            new Condition(SenseCode.RESERVATIONS_RELEASED, 0x06, 0x2A04, "\"Reservations released\"; LIO ASCQ_2AH_RESERVATIONS_RELEASED (a UNIT ATTENTION)"),
            new Condition(SenseCode.REGISTRATIONS_PREEMPTED, 0x06, 0x2A05, "\"Registrations preempted\"; LIO ASCQ_2AH_REGISTRATIONS_PREEMPTED (a UNIT ATTENTION)"),
            new Condition(SenseCode.INVALID_RELEASE_OF_PERSISTENT_RESERVATION, 0x05, 0x2604, "\"Invalid release of persistent reservation\"; SPC-4 5.13.11.2: ILLEGAL REQUEST"),
            new Condition(SenseCode.INSUFFICIENT_REGISTRATION_RESOURCES, 0x05, 0x5504, "\"Insufficient registration resources\"; SPC-4 5.13.7: ILLEGAL REQUEST"),
            new Condition(SenseCode.COPY_TARGET_DEVICE_NOT_REACHABLE, 0x0A, 0x0D02, "\"Copy target device not reachable\"; TCM_COPY_TARGET_DEVICE_NOT_REACHABLE"),
            new Condition(SenseCode.TOO_MANY_TARGET_DESCRIPTORS, 0x05, 0x2606, "\"Too many target descriptors\"; TCM_TOO_MANY_TARGET_DESCS"),
            new Condition(SenseCode.UNSUPPORTED_TARGET_DESCRIPTOR_TYPE_CODE, 0x05, 0x2607, "\"Unsupported target descriptor type code\"; TCM_UNSUPPORTED_TARGET_DESC_TYPE_CODE"),
            new Condition(SenseCode.TOO_MANY_SEGMENT_DESCRIPTORS, 0x05, 0x2608, "\"Too many segment descriptors\"; TCM_TOO_MANY_SEGMENT_DESCS"),
            new Condition(SenseCode.UNSUPPORTED_SEGMENT_DESCRIPTOR_TYPE_CODE, 0x05, 0x2609, "\"Unsupported segment descriptor type code\"; TCM_UNSUPPORTED_SEGMENT_DESC_TYPE_CODE"),
            new Condition(SenseCode.LOGICAL_UNIT_NOT_ACCESSIBLE_TARGET_PORT_IN_STANDBY_STATE, 0x02, 0x040B, "\"Logical unit not accessible, target port in standby state\"; TCM_ALUA_TG_PT_STANDBY"),
            new Condition(SenseCode.LOGICAL_UNIT_NOT_ACCESSIBLE_TARGET_PORT_IN_UNAVAILABLE_STATE, 0x02, 0x040C, "\"Logical unit not accessible, target port in unavailable state\"; TCM_ALUA_TG_PT_UNREACHABLE"),
            new Condition(SenseCode.ASYMMETRIC_ACCESS_STATE_CHANGED, 0x06, 0x2A06, "\"Asymmetric access state changed\"; LIO ASCQ_2AH_ASYMMETRIC_ACCESS_STATE_CHANGED (a UNIT ATTENTION)"));

    // include/target/target_core_base.h (PRO_*, PRI_*) and drivers/target/target_core_pr.h (PR_TYPE_*, PR_SCOPE_*).
    private static final List<Pin> PERSISTENT_RESERVE = List.of(
            pin(PersistentReserveData.class, "READ_KEYS", 0x00, "PRI_READ_KEYS"),
            pin(PersistentReserveData.class, "READ_RESERVATION", 0x01, "PRI_READ_RESERVATION"),
            pin(PersistentReserveData.class, "REPORT_CAPABILITIES", 0x02, "PRI_REPORT_CAPABILITIES"),
            pin(PersistentReserveData.class, "READ_FULL_STATUS", 0x03, "PRI_READ_FULL_STATUS"),
            pin(PersistentReserveData.class, "REGISTER", 0x00, "PRO_REGISTER"),
            pin(PersistentReserveData.class, "RESERVE", 0x01, "PRO_RESERVE"),
            pin(PersistentReserveData.class, "RELEASE", 0x02, "PRO_RELEASE"),
            pin(PersistentReserveData.class, "CLEAR", 0x03, "PRO_CLEAR"),
            pin(PersistentReserveData.class, "PREEMPT", 0x04, "PRO_PREEMPT"),
            pin(PersistentReserveData.class, "PREEMPT_AND_ABORT", 0x05, "PRO_PREEMPT_AND_ABORT"),
            pin(PersistentReserveData.class, "REGISTER_AND_IGNORE_EXISTING_KEY", 0x06, "PRO_REGISTER_AND_IGNORE_EXISTING_KEY"),
            pin(PersistentReserveData.class, "REGISTER_AND_MOVE", 0x07, "PRO_REGISTER_AND_MOVE"),
            pin(PersistentReserveData.class, "WRITE_EXCLUSIVE", 0x01, "PR_TYPE_WRITE_EXCLUSIVE"),
            pin(PersistentReserveData.class, "EXCLUSIVE_ACCESS", 0x03, "PR_TYPE_EXCLUSIVE_ACCESS"),
            pin(PersistentReserveData.class, "WRITE_EXCLUSIVE_REGISTRANTS_ONLY", 0x05, "PR_TYPE_WRITE_EXCLUSIVE_REGONLY"),
            pin(PersistentReserveData.class, "EXCLUSIVE_ACCESS_REGISTRANTS_ONLY", 0x06, "PR_TYPE_EXCLUSIVE_ACCESS_REGONLY"),
            pin(PersistentReserveData.class, "WRITE_EXCLUSIVE_ALL_REGISTRANTS", 0x07, "PR_TYPE_WRITE_EXCLUSIVE_ALLREG"),
            pin(PersistentReserveData.class, "EXCLUSIVE_ACCESS_ALL_REGISTRANTS", 0x08, "PR_TYPE_EXCLUSIVE_ACCESS_ALLREG"),
            pin(PersistentReserveData.class, "LU_SCOPE", 0x00, "PR_SCOPE_LU_SCOPE"));

    @Test
    void persistentReserveServiceActionsTypesAndScope() {
        check(PERSISTENT_RESERVE);
    }

    @Test
    void statusCodes() {
        check(STATUS);
    }

    @Test
    void senseKeys() {
        check(SENSE_KEYS);
    }

    @Test
    void operationCodesAndServiceActions() {
        check(OPCODES);
    }

    @Test
    void senseDataFramingAndLimits() {
        check(FRAMING);
    }

    @Test
    void senseCodesCarryTheirKeyAscAndAscq() {
        List<Executable> checks = new ArrayList<>();
        for (Condition c : CONDITIONS) {
            checks.add(() -> assertEquals(String.format("%02x/%02x/%02x", c.key(), c.ascAscq() >>> 8, c.ascAscq() & 0xFF),
                    String.format("%02x/%02x/%02x", c.code().senseKey(), c.code().asc(), c.code().ascq()),
                    () -> "key/ASC/ASCQ of " + c.code() + " (" + c.source() + ")"));
        }
        assertAll(checks);
    }

    /** A constant or condition added without a literal to check it against fails here. */
    @Test
    void everyConstantIsPinned() {
        Set<String> pinned = List.of(STATUS, SENSE_KEYS, OPCODES, PERSISTENT_RESERVE).stream().flatMap(List::stream)
                .map(p -> p.owner().getSimpleName() + "." + p.field()).collect(Collectors.toCollection(TreeSet::new));
        Set<String> unpinned = new TreeSet<>();
        for (Class<?> type : List.of(ScsiStatus.class, SenseKey.class, ScsiOpcode.class, PersistentReserveData.class)) {
            for (Field f : type.getDeclaredFields()) {
                int m = f.getModifiers();
                String name = type.getSimpleName() + "." + f.getName();
                if (Modifier.isPublic(m) && Modifier.isStatic(m) && f.getType() == int.class && !pinned.contains(name)) {
                    unpinned.add(name);
                }
            }
        }
        Set<SenseCode> conditions = CONDITIONS.stream().map(Condition::code).collect(Collectors.toSet());
        Arrays.stream(SenseCode.values()).filter(c -> !conditions.contains(c)).forEach(c -> unpinned.add("SenseCode." + c));
        assertEquals(Set.of(), unpinned, "constants without a literal from Linux or SPC");
    }

    private static void check(List<Pin> pins) {
        List<Executable> checks = new ArrayList<>();
        for (Pin p : pins) {
            checks.add(() -> {
                Field f = p.owner().getDeclaredField(p.field());
                f.setAccessible(true);
                long actual = f.getLong(null);
                assertEquals(p.literal(), actual, () -> String.format("%s.%s is 0x%x; %s is 0x%x",
                        p.owner().getSimpleName(), p.field(), actual, p.source(), p.literal()));
            });
        }
        assertAll(checks);
    }
}
