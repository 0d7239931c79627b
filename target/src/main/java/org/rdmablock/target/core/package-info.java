/**
 * The target's transport-neutral core: completions, command slots, the data phase (RDMA READ of data-out, RDMA WRITE
 * of data-in, in rounds), the registered data memory, backend dispatch, command timeouts and statistics. A protocol
 * plugs in as a {@link org.rdmablock.target.core.FrontEnd} (SRP's is in {@code org.rdmablock.target.srp}); nothing
 * here names one (target/README.md, "The core and the front ends").
 */
package org.rdmablock.target.core;
