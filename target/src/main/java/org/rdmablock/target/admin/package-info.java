/**
 * The management endpoint: JSON-RPC 2.0 on a Unix domain socket ({@link org.rdmablock.target.admin.AdminEndpoint}),
 * its methods ({@link org.rdmablock.target.admin.AdminMethods}) and the client command {@code rdmablock admin}
 * ({@link org.rdmablock.target.admin.AdminCommand}).
 */
package org.rdmablock.target.admin;
