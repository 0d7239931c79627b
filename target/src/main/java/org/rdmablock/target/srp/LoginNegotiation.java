package org.rdmablock.target.srp;

import org.rdmablock.protocol.srp.SrpBufferFormat;
import org.rdmablock.protocol.srp.SrpCommand;
import org.rdmablock.protocol.srp.SrpDecodeError;
import org.rdmablock.protocol.srp.SrpLoginReject;
import org.rdmablock.protocol.srp.SrpLoginRequest;
import org.rdmablock.protocol.srp.SrpLoginRequestRdmaCm;
import org.rdmablock.protocol.srp.SrpLoginResponse;
import org.rdmablock.target.config.ChannelConfig;
import org.rdmablock.target.config.IdentityConfig;
import org.rdmablock.target.config.InitiatorPortId;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Decides one SRP login from the connect request's private data, as ib_srpt does: the 56-byte rdma_cm form that
 * Linux {@code ib_srp} sends (or the 64-byte IU form, when exactly 64 bytes arrive), the target port id, the
 * requested IU length, buffer formats, immediate data and the multichannel action. Produces the LOGIN_RSP or
 * LOGIN_REJ private data. Runs on the login thread; allocates (logins are not the hot path).
 */
final class LoginNegotiation {
    /** Buffer formats the target serves: direct and indirect descriptors. */
    static final int SUPPORTED_FORMATS = SrpBufferFormat.SUPPORTS_DIRECT | SrpBufferFormat.SUPPORTS_INDIRECT;

    // what the request asked
    long tag;
    InitiatorPortId initiator;
    long requestedIuLength;
    int multichannelAction;
    int immediateDataOffset;
    /** The reject reason, or 0 when the login may go on. */
    int rejectReason;
    String rejectWhy;

    /** Reads and checks a login request; afterwards {@link #rejectReason} says whether it may go on. */
    static LoginNegotiation of(final byte[] privateData, final IdentityConfig identity, final ChannelConfig limits) {
        final LoginNegotiation login = new LoginNegotiation();
        final SrpLoginRequest request = new SrpLoginRequest();
        final MemorySegment iu = Arena.ofAuto().allocate(SrpLoginRequest.LENGTH, 8);
        if (privateData.length == SrpLoginRequest.LENGTH && privateData[0] == 0) {
            MemorySegment.copy(MemorySegment.ofArray(privateData), 0, iu, 0, SrpLoginRequest.LENGTH);
            request.wrap(iu, 0);
        } else {
            final MemorySegment rdma = MemorySegment.ofArray(privateData);
            final SrpLoginRequestRdmaCm cm = new SrpLoginRequestRdmaCm().wrap(rdma, 0);
            if (cm.validate(privateData.length) != SrpDecodeError.NONE) {
                return login.reject(SrpLoginReject.REASON_UNABLE_ESTABLISH_CHANNEL,
                        "the connect request carries no SRP login (" + privateData.length + " bytes of private data)");
            }
            cm.copyTo(request.wrap(iu, 0));
        }
        if (request.validate(SrpLoginRequest.LENGTH) != SrpDecodeError.NONE) {
            return login.reject(SrpLoginReject.REASON_UNABLE_ESTABLISH_CHANNEL, "not an SRP_LOGIN_REQ");
        }
        login.tag = request.tag();
        login.initiator = new InitiatorPortId(request.initiatorPortIdHigh(), request.initiatorPortIdLow());
        final long idExt = request.targetPortIdExt();
        final long iocGuid = request.targetPortIocGuid();
        if (idExt != identity.idExt() || iocGuid != identity.iocGuid()) {
            return login.reject(SrpLoginReject.REASON_UNABLE_ASSOCIATE_CHANNEL, String.format(
                    "target port id %016x%016x is not this target's (%016x%016x)", idExt, iocGuid, identity.idExt(), identity.iocGuid()));
        }
        login.requestedIuLength = request.requestedMaxInitiatorToTargetIuLength();
        if (login.requestedIuLength < SrpCommand.FIXED_LENGTH + 16 || login.requestedIuLength > limits.maxIuLength()) {
            return login.reject(SrpLoginReject.REASON_REQ_IT_IU_LENGTH_TOO_LARGE, "requested IU length "
                    + login.requestedIuLength + " is outside " + (SrpCommand.FIXED_LENGTH + 16) + ".." + limits.maxIuLength());
        }
        if ((request.requiredBufferFormats() & SUPPORTED_FORMATS) == 0) {
            return login.reject(SrpLoginReject.REASON_UNSUPPORTED_DESCRIPTOR_FORMAT,
                    "buffer formats 0x" + Integer.toHexString(request.requiredBufferFormats()) + " name neither direct nor indirect");
        }
        login.multichannelAction = request.multichannelAction();
        if (request.immediateDataRequested() && limits.immediateData()) {
            final int offset = request.immediateDataOffset();
            // the data must start after the fixed command and end inside the IU (ib_srpt's check)
            if (offset >= SrpCommand.FIXED_LENGTH && offset < login.requestedIuLength) {
                login.immediateDataOffset = offset;
            }
        }
        return login;
    }

    private LoginNegotiation reject(final int reason, final String why) {
        rejectReason = reason;
        rejectWhy = why;
        return this;
    }

    /** {@link #rejectReason} by its name in SRP (r16a 6.9), for the log. */
    String rejectReasonName() {
        return switch (rejectReason) {
            case SrpLoginReject.REASON_UNABLE_ESTABLISH_CHANNEL -> "UNABLE TO ESTABLISH RDMA CHANNEL";
            case SrpLoginReject.REASON_INSUFFICIENT_RESOURCES -> "INSUFFICIENT RESOURCES";
            case SrpLoginReject.REASON_REQ_IT_IU_LENGTH_TOO_LARGE -> "REQUESTED MAXIMUM IU LENGTH TOO LARGE";
            case SrpLoginReject.REASON_UNABLE_ASSOCIATE_CHANNEL -> "UNABLE TO ASSOCIATE RDMA CHANNEL";
            case SrpLoginReject.REASON_UNSUPPORTED_DESCRIPTOR_FORMAT -> "UNSUPPORTED DESCRIPTOR FORMAT";
            case SrpLoginReject.REASON_MULTI_CHANNEL_UNSUPPORTED -> "MULTICHANNEL NOT SUPPORTED";
            case SrpLoginReject.REASON_CHANNEL_LIMIT_REACHED -> "RDMA CHANNEL LIMIT REACHED";
            default -> "reason 0x" + Integer.toHexString(rejectReason);
        };
    }

    /** The LOGIN_REJ private data for {@link #rejectReason}. */
    byte[] rejectPrivateData() {
        final MemorySegment out = MemorySegment.ofArray(new byte[SrpLoginReject.LENGTH]);
        new SrpLoginReject().wrap(out, 0).reset().setReason(rejectReason).setSupportedBufferFormats(SUPPORTED_FORMATS).setTag(tag);
        return out.toArray(ValueLayout.JAVA_BYTE);
    }

    /** The LOGIN_RSP private data granting {@code credits} with the given multichannel result. */
    byte[] responsePrivateData(final int credits, final int multichannelResult) {
        final MemorySegment out = MemorySegment.ofArray(new byte[SrpLoginResponse.LENGTH]);
        new SrpLoginResponse().wrap(out, 0).reset().setTag(tag).setRequestLimitDelta(credits)
                .setMaxInitiatorToTargetIuLength(requestedIuLength).setMaxTargetToInitiatorIuLength(requestedIuLength)
                .setSupportedBufferFormats(SUPPORTED_FORMATS)
                .setFlags(multichannelResult | (immediateDataOffset != 0 ? SrpLoginResponse.IMMEDIATE_DATA_SUPPORTED : 0));
        return out.toArray(ValueLayout.JAVA_BYTE);
    }
}
