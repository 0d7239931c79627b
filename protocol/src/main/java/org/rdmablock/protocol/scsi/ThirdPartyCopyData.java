package org.rdmablock.protocol.scsi;

import java.lang.foreign.MemorySegment;

import static org.rdmablock.protocol.scsi.BigEndian.put16;
import static org.rdmablock.protocol.scsi.BigEndian.put32;
import static org.rdmablock.protocol.scsi.BigEndian.put8;

/**
 * The copy manager's limits and the two pages that report them: RECEIVE COPY RESULTS' OPERATING PARAMETERS (SPC-4
 * 6.18.4, what {@code sg_xcopy} and VMware read before an EXTENDED COPY) and the Third-party Copy VPD page (8Fh, SPC-4
 * 7.8.17). The copy is made inside the target, a chunk at a time through a buffer of the command's own; nothing is held
 * for later retrieval (HELD DATA LIMIT 0), so initiators send LIST ID USAGE 10b or 11b and no copy status is kept.
 */
final class ThirdPartyCopyData {
    /** CSCD descriptors one EXTENDED COPY may carry: a source and a destination, and room for a few more. */
    static final int MAX_CSCD_DESCRIPTORS = 4;
    static final int MAX_SEGMENT_DESCRIPTORS = 8;
    /** One segment copies at most this much: a command's whole work stays well inside initiators' timeouts. */
    static final long MAX_SEGMENT_BYTES = 32L << 20;
    static final int MAX_DESCRIPTOR_LIST_LENGTH = MAX_CSCD_DESCRIPTORS * CopyParameterList.CSCD_LENGTH
            + MAX_SEGMENT_DESCRIPTORS * CopyParameterList.SEGMENT_BLOCK_TO_BLOCK_LENGTH;
    /** Segments are whole blocks: 2^9 bytes at least. */
    static final int DATA_SEGMENT_GRANULARITY_LOG2 = 9;
    /** Copies the manager promises to run at once: one (more run when the target has the slots). */
    static final int CONCURRENT_COPIES = 1;

    /** OPERATING PARAMETERS' layout: AVAILABLE DATA counts the bytes after itself. */
    static final int OP_AVAILABLE_DATA_OFFSET = 0;
    static final int OP_SNLID_OFFSET = 4;
    static final int OP_MAX_CSCD_OFFSET = 8;
    static final int OP_MAX_SEGMENTS_OFFSET = 10;
    static final int OP_MAX_LIST_LENGTH_OFFSET = 12;
    static final int OP_MAX_SEGMENT_LENGTH_OFFSET = 16;
    static final int OP_TOTAL_CONCURRENT_COPIES_OFFSET = 34;
    static final int OP_MAX_CONCURRENT_COPIES_OFFSET = 36;
    static final int OP_DATA_SEGMENT_GRANULARITY_OFFSET = 37;
    static final int OP_IMPLEMENTED_LIST_LENGTH_OFFSET = 43;
    static final int OP_IMPLEMENTED_LIST_OFFSET = 44;
    /** The descriptor type codes served, ascending: block to block segments, identification CSCDs. */
    private static final int[] IMPLEMENTED = {CopyParameterList.SEGMENT_BLOCK_TO_BLOCK, CopyParameterList.CSCD_IDENTIFICATION};

    /** Third-party copy descriptor types of page 8Fh, each a 2-byte type and 2-byte length, padded to 4 bytes. */
    static final int TPC_SUPPORTED_COMMANDS = 0x0001;
    static final int TPC_PARAMETER_DATA = 0x0004;
    static final int TPC_SUPPORTED_DESCRIPTORS = 0x0008;
    static final int TPC_SUPPORTED_CSCD_IDS = 0x000C;
    static final int TPC_GENERAL_COPY_OPERATIONS = 0x8001;

    private ThirdPartyCopyData() {
    }

    /** Writes the OPERATING PARAMETERS data at the start of {@code out}; returns its length. */
    static int operatingParameters(MemorySegment out) {
        put8(out, OP_SNLID_OFFSET, 0x01);                            // SNLID: LIST ID USAGE 11b is accepted
        put16(out, OP_MAX_CSCD_OFFSET, MAX_CSCD_DESCRIPTORS);
        put16(out, OP_MAX_SEGMENTS_OFFSET, MAX_SEGMENT_DESCRIPTORS);
        put32(out, OP_MAX_LIST_LENGTH_OFFSET, MAX_DESCRIPTOR_LIST_LENGTH);
        put32(out, OP_MAX_SEGMENT_LENGTH_OFFSET, MAX_SEGMENT_BYTES);
        // maximum inline data length, held data limit and maximum stream device transfer size stay 0: none
        put16(out, OP_TOTAL_CONCURRENT_COPIES_OFFSET, CONCURRENT_COPIES);
        put8(out, OP_MAX_CONCURRENT_COPIES_OFFSET, CONCURRENT_COPIES);
        put8(out, OP_DATA_SEGMENT_GRANULARITY_OFFSET, DATA_SEGMENT_GRANULARITY_LOG2);
        put8(out, OP_IMPLEMENTED_LIST_LENGTH_OFFSET, IMPLEMENTED.length);
        for (int i = 0; i < IMPLEMENTED.length; i++) {
            put8(out, OP_IMPLEMENTED_LIST_OFFSET + i, IMPLEMENTED[i]);
        }
        int length = OP_IMPLEMENTED_LIST_OFFSET + IMPLEMENTED.length;
        put32(out, OP_AVAILABLE_DATA_OFFSET, length - 4);
        return length;
    }

    /**
     * Writes the Third-party Copy VPD page's descriptors from byte 4 of {@code out} (the page header is the caller's);
     * returns the page length, the bytes after the header. The mandatory Supported Commands and General Copy Operations
     * descriptors, and those SPC-4 asks of an EXTENDED COPY(LID1) copy manager: Parameter Data, Supported Descriptors and
     * Supported CSCD Descriptor IDs (none above 07FFh).
     */
    static int vpdPage(MemorySegment out) {
        int at = 4;
        // Supported Commands: EXTENDED COPY with LID1, RECEIVE COPY RESULTS with OPERATING PARAMETERS
        int[] commands = {ScsiOpcode.EXTENDED_COPY, 1, ScsiOpcode.SA_EXTENDED_COPY_LID1,
            ScsiOpcode.RECEIVE_COPY_RESULTS, 1, ScsiOpcode.SA_RECEIVE_COPY_OPERATING_PARAMETERS};
        int body = 1 + commands.length;
        put8(out, at + 4, commands.length);
        for (int i = 0; i < commands.length; i++) {
            put8(out, at + 5 + i, commands[i]);
        }
        at = descriptor(out, at, TPC_SUPPORTED_COMMANDS, body);

        put16(out, at + 8, MAX_CSCD_DESCRIPTORS);
        put16(out, at + 10, MAX_SEGMENT_DESCRIPTORS);
        put32(out, at + 12, MAX_DESCRIPTOR_LIST_LENGTH);
        at = descriptor(out, at, TPC_PARAMETER_DATA, 28);       // maximum inline data length (16-19) stays 0

        put8(out, at + 4, IMPLEMENTED.length);
        for (int i = 0; i < IMPLEMENTED.length; i++) {
            put8(out, at + 5 + i, IMPLEMENTED[i]);
        }
        at = descriptor(out, at, TPC_SUPPORTED_DESCRIPTORS, 1 + IMPLEMENTED.length);

        at = descriptor(out, at, TPC_SUPPORTED_CSCD_IDS, 2);     // an empty list: CSCD IDs are indexes only

        put32(out, at + 4, CONCURRENT_COPIES);                   // total concurrent copies
        put32(out, at + 12, MAX_SEGMENT_BYTES);                  // maximum identified concurrent copies (8-11) stays 0
        put8(out, at + 16, DATA_SEGMENT_GRANULARITY_LOG2);
        at = descriptor(out, at, TPC_GENERAL_COPY_OPERATIONS, 32);
        return at - 4;
    }

    /** Writes a descriptor's type and length (its body padded to a multiple of 4 bytes); returns where the next starts. */
    private static int descriptor(MemorySegment out, int at, int type, int bodyLength) {
        int padded = (bodyLength + 3) & ~3;
        put16(out, at, type);
        put16(out, at + 2, padded);
        return at + 4 + padded;
    }
}
