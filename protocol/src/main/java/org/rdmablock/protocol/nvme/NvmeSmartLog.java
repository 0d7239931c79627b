package org.rdmablock.protocol.nvme;

/**
 * The SMART / Health Information log page (log {@link NvmeGetLogPage#LOG_SMART}), 512 bytes: Linux
 * {@code struct nvme_smart_log}, the counters a target keeps. The counters are 128-bit; this writes their low 64 bits.
 */
public final class NvmeSmartLog extends NvmeStructure<NvmeSmartLog> {
    /** Size of the page. */
    public static final int LENGTH = 512;
    /** Critical warning bits, 1 byte. */
    public static final int CRITICAL_WARNING_OFFSET = 0;
    /** Composite temperature in kelvin, 2 bytes. */
    public static final int TEMPERATURE_OFFSET = 1;
    /** Available spare, percent, 1 byte. */
    public static final int AVAILABLE_SPARE_OFFSET = 3;
    /** Available spare threshold, percent, 1 byte. */
    public static final int SPARE_THRESHOLD_OFFSET = 4;
    /** Percentage used, 1 byte. */
    public static final int PERCENT_USED_OFFSET = 5;
    /** Data units read (thousands of 512-byte units), 16 bytes. */
    public static final int DATA_UNITS_READ_OFFSET = 32;
    /** Data units written, 16 bytes. */
    public static final int DATA_UNITS_WRITTEN_OFFSET = 48;
    /** Host read commands, 16 bytes. */
    public static final int HOST_READS_OFFSET = 64;
    /** Host write commands, 16 bytes. */
    public static final int HOST_WRITES_OFFSET = 80;
    /** Power-on hours, 16 bytes. */
    public static final int POWER_ON_HOURS_OFFSET = 128;
    /** Media and data integrity errors, 16 bytes. */
    public static final int MEDIA_ERRORS_OFFSET = 160;
    /** Error information log entries, 16 bytes. */
    public static final int ERROR_LOG_ENTRIES_OFFSET = 176;
    /** Bytes in one data unit: 1000 units of 512 bytes. */
    public static final long DATA_UNIT_BYTES = 512_000;

    /** Zeroes the page, ready for the setters. */
    public NvmeSmartLog reset() {
        clear(LENGTH);
        return this;
    }

    /** Temperature in kelvin, spare and its threshold in percent, and the percentage used. */
    public NvmeSmartLog setHealth(final int kelvin, final int spare, final int spareThreshold, final int percentUsed) {
        putU16(TEMPERATURE_OFFSET, kelvin);
        putU8(AVAILABLE_SPARE_OFFSET, spare);
        putU8(SPARE_THRESHOLD_OFFSET, spareThreshold);
        putU8(PERCENT_USED_OFFSET, percentUsed);
        return this;
    }

    /** Bytes read and written (as data units, rounded up) and the read and write commands. */
    public NvmeSmartLog setTraffic(final long bytesRead, final long bytesWritten, final long reads, final long writes) {
        put64(DATA_UNITS_READ_OFFSET, units(bytesRead));
        put64(DATA_UNITS_WRITTEN_OFFSET, units(bytesWritten));
        put64(HOST_READS_OFFSET, reads);
        put64(HOST_WRITES_OFFSET, writes);
        return this;
    }

    private static long units(final long bytes) {
        return Long.divideUnsigned(bytes + DATA_UNIT_BYTES - 1, DATA_UNIT_BYTES);
    }

    public NvmeSmartLog setPowerOnHours(final long hours) {
        put64(POWER_ON_HOURS_OFFSET, hours);
        return this;
    }

    public NvmeSmartLog setErrors(final long mediaErrors, final long errorLogEntries) {
        put64(MEDIA_ERRORS_OFFSET, mediaErrors);
        put64(ERROR_LOG_ENTRIES_OFFSET, errorLogEntries);
        return this;
    }

    public long dataUnitsRead() {
        return u64(DATA_UNITS_READ_OFFSET);
    }

    public long dataUnitsWritten() {
        return u64(DATA_UNITS_WRITTEN_OFFSET);
    }

    public long hostReads() {
        return u64(HOST_READS_OFFSET);
    }

    public int temperature() {
        return u16(TEMPERATURE_OFFSET);
    }
}
