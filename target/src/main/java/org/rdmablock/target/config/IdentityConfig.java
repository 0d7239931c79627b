package org.rdmablock.target.config;

/**
 * The target's SRP identity: the two 64-bit values an initiator passes to {@code add_target} ({@code id_ext=},
 * {@code ioc_guid=}) and that make up the 16-byte target port identifier (id_ext first, then ioc_guid, SRP r16a
 * 5.6.2).
 */
public record IdentityConfig(long idExt, long iocGuid) {
}
