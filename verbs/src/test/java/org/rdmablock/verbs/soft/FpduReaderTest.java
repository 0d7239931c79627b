package org.rdmablock.verbs.soft;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.channels.ScatteringByteChannel;
import java.util.Random;

import org.junit.jupiter.api.Test;
import org.rdmablock.verbs.soft.wire.Fpdu;
import org.rdmablock.verbs.soft.wire.FpduHeader;
import org.rdmablock.verbs.soft.wire.RdmapOpcode;

/**
 * The reader's choice between staging and direct reads: which bytes of a stream of RDMA WRITE segments land in the
 * staging buffer (and are copied out of it) and which go straight from the socket into the region.
 */
class FpduReaderTest {
    private static final int STAG = 0x1234;

    @Test
    void largeSegmentsAfterTheFirstGoStraightIntoMemory() throws Exception {
        final int segment = RdmapTransmitter.MAX_SEGMENT;
        final int segments = 32;
        final Stream stream = new Stream(segment, segments);
        // the first header arrives in a greedy read with most of its payload; from then on a staging read stops at
        // the next header: trailer and header bytes only
        final long perSegment = Fpdu.CRC_SIZE + FpduHeader.TAGGED_LENGTH;
        assertTrue(stream.channel.stagedBytes <= FpduReader.STAGING_SIZE + segments * perSegment,
            "bytes read into staging: " + stream.channel.stagedBytes + " of " + (long) segment * segments + " payload");
        assertArrayEquals(stream.sent, stream.placed(), "the region holds what was written");
        assertEquals(segments, stream.segmentsEnded);
    }

    @Test
    void smallSegmentsAreStillReadManyAtATime() throws Exception {
        final int segment = 4096;
        final int segments = 64;
        final Stream stream = new Stream(segment, segments);
        // 4 KiB segments stay below the header-first threshold: a staging read takes as many as it can
        assertTrue(stream.channel.reads <= 8, stream.channel.reads + " reads for " + segments + " 4 KiB segments");
        assertArrayEquals(stream.sent, stream.placed(), "the region holds what was written");
        assertEquals(segments, stream.segmentsEnded);
    }

    @Test
    void headerFirstReadsKeepTheCrcCheckWhole() throws Exception {
        final Stream stream = new Stream(RdmapTransmitter.MAX_SEGMENT, 4);
        assertEquals(0, stream.errors, "no CRC error on a good stream");
        final Stream corrupt = new Stream(RdmapTransmitter.MAX_SEGMENT, 4, 3 * RdmapTransmitter.MAX_SEGMENT + 100);
        assertEquals(1, corrupt.errors, "a flipped payload byte in a directly read segment is a CRC error");
    }

    /** RDMA WRITE segments of {@code segment} bytes built by an {@link FpduWriter}, fed to an {@link FpduReader}. */
    private static final class Stream implements FpduReader.Handler {
        final byte[] sent;
        final RecordingChannel channel;
        final Arena arena = Arena.ofConfined();
        final SoftMemoryRegion region;
        int segmentsEnded;
        int errors;

        Stream(final int segment, final int segments) throws Exception {
            this(segment, segments, -1);
        }

        /** With MPA CRC; {@code flipPayloadByte}: the byte of the written data to corrupt on the wire (-1: none). */
        Stream(final int segment, final int segments, final long flipPayloadByte) throws Exception {
            sent = new byte[segment * segments];
            new Random(segment).nextBytes(sent);
            region = new SoftMemoryRegion(null, arena.allocate(sent.length, 64), 0, STAG);
            final ByteBuffer wire = ByteBuffer.allocate(segments * (segment + 64));
            final FpduWriter writer = new FpduWriter(true);
            final FpduHeader header = new FpduHeader();
            final MemorySegment source = MemorySegment.ofArray(sent);
            final WireSink sink = new WireSink(wire);
            for (int i = 0; i < segments; i++) {
                header.wrap(writer.begin(FpduHeader.TAGGED_LENGTH, segment), writer.fpduOffset())
                    .control(RdmapOpcode.RDMA_WRITE, i == segments - 1, 0).tagged(STAG, (long) i * segment);
                writer.copyPayload(source, (long) i * segment, segment);
                writer.finish();
                assertTrue(writer.flush(sink));
            }
            wire.flip();
            if (flipPayloadByte >= 0) {
                final long fpdu = Fpdu.totalLength(FpduHeader.TAGGED_LENGTH - Fpdu.LENGTH_SIZE + segment);
                final int at = (int) (flipPayloadByte / segment * fpdu + FpduHeader.TAGGED_LENGTH + flipPayloadByte % segment);
                wire.put(at, (byte) ~wire.get(at));
            }
            channel = new RecordingChannel(wire, region.segment());
            final FpduReader reader = new FpduReader(this, true, 1);
            for (int i = 0; i < 10_000 && wire.hasRemaining() && !reader.hasFailed(); i++) {
                reader.onReadable(channel);
            }
        }

        byte[] placed() {
            return region.segment().toArray(ValueLayout.JAVA_BYTE);
        }

        @Override
        public int onDataHeader(final FpduHeader header, final int payloadLength, final Placement placement) {
            placement.region(region, header.taggedOffset(), payloadLength);
            return FpduReader.ACCEPT;
        }

        @Override
        public int onDataEnd() {
            segmentsEnded++;
            return FpduReader.ACCEPT;
        }

        @Override
        public int onControl(final FpduHeader header, final ByteBuffer buffer) {
            throw new AssertionError("no control message was sent");
        }

        @Override
        public void onStreamError(final int layer, final int errorType, final int errorCode, final String reason) {
            errors++;
        }
    }

    /** Collects what a writer flushes. */
    private record WireSink(ByteBuffer wire) implements java.nio.channels.WritableByteChannel {
        @Override
        public int write(final ByteBuffer src) {
            final int n = src.remaining();
            wire.put(src);
            return n;
        }

        @Override
        public boolean isOpen() {
            return true;
        }

        @Override
        public void close() {
        }
    }

    /** A socket that has the whole stream ready; counts reads and the bytes that went into staging rather than the region. */
    private static final class RecordingChannel implements ScatteringByteChannel {
        private final ByteBuffer wire;
        private final MemorySegment region;
        int reads;
        long stagedBytes;

        RecordingChannel(final ByteBuffer wire, final MemorySegment region) {
            this.wire = wire;
            this.region = region;
        }

        @Override
        public int read(final ByteBuffer dst) {
            if (!wire.hasRemaining()) {
                return 0;
            }
            reads++;
            final int n = Math.min(dst.remaining(), wire.remaining());
            final long address = MemorySegment.ofBuffer(dst).address();
            final boolean intoRegion = address >= region.address() && address < region.address() + region.byteSize();
            if (!intoRegion) {
                stagedBytes += n;
            }
            dst.put(wire.slice(wire.position(), n));
            wire.position(wire.position() + n);
            return n;
        }

        @Override
        public long read(final ByteBuffer[] dsts, final int offset, final int length) {
            throw new UnsupportedOperationException();
        }

        @Override
        public long read(final ByteBuffer[] dsts) {
            throw new UnsupportedOperationException();
        }

        @Override
        public boolean isOpen() {
            return true;
        }

        @Override
        public void close() {
        }
    }
}
