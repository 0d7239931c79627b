/* The headers the native provider's bindings are generated from (rdma-core: libibverbs-dev, librdmacm-dev). */
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>
#include <poll.h>
