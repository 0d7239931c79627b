package org.rdmablock.protocol.srp;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Classifies and validates one received information unit, then hands out the matching flyweight,
 * already wrapped. One decoder per receiving thread: it owns one flyweight of each kind and allocates
 * nothing per IU.
 *
 * <pre>{@code
 * SrpDecodeError error = decoder.decode(recvBuffer, 0, byteLength);
 * if (error != SrpDecodeError.NONE) { ...answer the protocol error... }
 * else if (decoder.opcode() == SrpOpcode.CMD) { SrpCommand cmd = decoder.command(); ... }
 * }</pre>
 */
public final class SrpIuDecoder {
    private final SrpLoginRequest loginRequest = new SrpLoginRequest();
    private final SrpLoginResponse loginResponse = new SrpLoginResponse();
    private final SrpLoginReject loginReject = new SrpLoginReject();
    private final SrpTaskManagement taskManagement = new SrpTaskManagement();
    private final SrpCommand command = new SrpCommand();
    private final SrpInitiatorLogout initiatorLogout = new SrpInitiatorLogout();
    private final SrpTargetLogout targetLogout = new SrpTargetLogout();
    private final SrpResponse response = new SrpResponse();
    private final SrpCreditRequest creditRequest = new SrpCreditRequest();
    private final SrpCreditResponse creditResponse = new SrpCreditResponse();
    private final SrpAerRequest aerRequest = new SrpAerRequest();
    private final SrpAerResponse aerResponse = new SrpAerResponse();

    private int immediateDataOffset;
    private int opcode = -1;

    /** Sets the immediate-data offset the channel negotiated (0, the default, when it did not). */
    public SrpIuDecoder immediateDataOffset(int offset) {
        this.immediateDataOffset = offset;
        return this;
    }

    /**
     * Decodes the {@code length} bytes at {@code offset} in {@code segment}. Returns
     * {@link SrpDecodeError#NONE} and wraps the flyweight for {@link #opcode()}, or the reason the bytes
     * are not a valid IU. Never throws for any content, and reads nothing outside the given bytes.
     */
    public SrpDecodeError decode(MemorySegment segment, long offset, long length) {
        opcode = -1;
        if (length < 0 || offset < 0 || offset > segment.byteSize() || length > segment.byteSize() - offset) {
            return SrpDecodeError.OUTSIDE_BUFFER;
        }
        if (length < 1) {
            return SrpDecodeError.TOO_SHORT;
        }
        int code = Byte.toUnsignedInt(segment.get(ValueLayout.JAVA_BYTE, offset));
        SrpDecodeError error = switch (code) {
            case SrpOpcode.LOGIN_REQ -> loginRequest.wrap(segment, offset).validate(length);
            case SrpOpcode.TSK_MGMT -> taskManagement.wrap(segment, offset).validate(length);
            case SrpOpcode.CMD -> command.wrap(segment, offset).validate(length, immediateDataOffset);
            case SrpOpcode.I_LOGOUT -> initiatorLogout.wrap(segment, offset).validate(length);
            case SrpOpcode.CRED_RSP -> creditResponse.wrap(segment, offset).validate(length);
            case SrpOpcode.AER_RSP -> aerResponse.wrap(segment, offset).validate(length);
            case SrpOpcode.T_LOGOUT -> targetLogout.wrap(segment, offset).validate(length);
            case SrpOpcode.CRED_REQ -> creditRequest.wrap(segment, offset).validate(length);
            case SrpOpcode.AER_REQ -> aerRequest.wrap(segment, offset).validate(length);
            case SrpOpcode.LOGIN_RSP -> loginResponse.wrap(segment, offset).validate(length);
            case SrpOpcode.RSP -> response.wrap(segment, offset).validate(length);
            case SrpOpcode.LOGIN_REJ -> loginReject.wrap(segment, offset).validate(length);
            default -> SrpDecodeError.UNKNOWN_OPCODE;
        };
        if (error == SrpDecodeError.NONE) {
            opcode = code;
        }
        return error;
    }

    /** The opcode of the last successfully decoded IU, or -1. */
    public int opcode() {
        return opcode;
    }

    public SrpLoginRequest loginRequest() {
        return expect(SrpOpcode.LOGIN_REQ, loginRequest);
    }

    public SrpLoginResponse loginResponse() {
        return expect(SrpOpcode.LOGIN_RSP, loginResponse);
    }

    public SrpLoginReject loginReject() {
        return expect(SrpOpcode.LOGIN_REJ, loginReject);
    }

    public SrpTaskManagement taskManagement() {
        return expect(SrpOpcode.TSK_MGMT, taskManagement);
    }

    public SrpCommand command() {
        return expect(SrpOpcode.CMD, command);
    }

    public SrpInitiatorLogout initiatorLogout() {
        return expect(SrpOpcode.I_LOGOUT, initiatorLogout);
    }

    public SrpTargetLogout targetLogout() {
        return expect(SrpOpcode.T_LOGOUT, targetLogout);
    }

    public SrpResponse response() {
        return expect(SrpOpcode.RSP, response);
    }

    public SrpCreditRequest creditRequest() {
        return expect(SrpOpcode.CRED_REQ, creditRequest);
    }

    public SrpCreditResponse creditResponse() {
        return expect(SrpOpcode.CRED_RSP, creditResponse);
    }

    public SrpAerRequest aerRequest() {
        return expect(SrpOpcode.AER_REQ, aerRequest);
    }

    public SrpAerResponse aerResponse() {
        return expect(SrpOpcode.AER_RSP, aerResponse);
    }

    private <T> T expect(int expected, T flyweight) {
        if (opcode != expected) {
            throw new IllegalStateException("last decoded IU is " + (opcode < 0 ? "invalid" : SrpOpcode.name(opcode))
                    + ", not " + SrpOpcode.name(expected));
        }
        return flyweight;
    }
}
