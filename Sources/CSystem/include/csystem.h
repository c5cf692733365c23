// CSystem: the Linux system calls that Swift's Glibc module does not surface (epoll, accept4,
// eventfd) plus small helpers around socket options, wrapped once with a `csystem_` prefix.
//
// Only the `HTTP2` module imports this target. Every function returns the raw C result and leaves
// errno untouched, so the Swift side keeps one place (`SystemCall`) that retries EINTR, maps
// EAGAIN to "would block" and turns everything else into an error carrying errno and the name.
#ifndef CSYSTEM_H
#define CSYSTEM_H

#include <stdint.h>
#include <sys/types.h>
#include <sys/socket.h>

// Event bits, mirrored from <sys/epoll.h> so that Swift sees plain integer constants.
extern const uint32_t CSYSTEM_EPOLLIN;
extern const uint32_t CSYSTEM_EPOLLOUT;
extern const uint32_t CSYSTEM_EPOLLERR;
extern const uint32_t CSYSTEM_EPOLLHUP;
extern const uint32_t CSYSTEM_EPOLLRDHUP;

/// One readiness report: the registered 64-bit token and the event bits.
typedef struct csystem_event {
    uint64_t token;
    uint32_t events;
} csystem_event;

int csystem_epoll_create(void);                                        // epoll_create1(EPOLL_CLOEXEC)
int csystem_epoll_add(int epfd, int fd, uint32_t events, uint64_t token);
int csystem_epoll_modify(int epfd, int fd, uint32_t events, uint64_t token);
int csystem_epoll_remove(int epfd, int fd);
/// epoll_wait into `out` (at most `capacity` entries); returns the count or -1 with errno.
int csystem_epoll_wait(int epfd, csystem_event *out, int capacity, int timeout_ms);

/// accept4 with SOCK_NONBLOCK | SOCK_CLOEXEC.
int csystem_accept(int fd);
/// A nonblocking, close-on-exec TCP socket of the given family.
int csystem_tcp_socket(int family);

/// eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC).
int csystem_eventfd(void);
/// Adds 1 to the eventfd counter; returns 0 or -1 with errno.
int csystem_eventfd_signal(int fd);
/// Resets the eventfd counter; returns 0 (also when it was already 0) or -1 with errno.
int csystem_eventfd_drain(int fd);

int csystem_set_int_option(int fd, int level, int name, int value);
int csystem_set_reuseaddr(int fd);
int csystem_set_nodelay(int fd);
/// getsockopt(SO_ERROR): the pending error of a nonblocking connect (0 when it succeeded).
int csystem_socket_error(int fd, int *error);

/// Binds and listens on host:port (numeric IPv4/IPv6 address); returns the fd or -1 with errno.
/// `*bound_port` receives the port actually bound (useful with port 0).
int csystem_listen(const char *host, int port, int backlog, int *bound_port);

/// Starts a nonblocking connect to a numeric or named host. Returns the fd (connect in progress or
/// done) or -1 with errno; a resolution failure returns -1 with errno = EHOSTUNREACH and
/// `*gai_error` set to the getaddrinfo code.
int csystem_connect(const char *host, int port, int *gai_error);

/// send(2) with MSG_NOSIGNAL so that a peer that went away yields EPIPE instead of SIGPIPE.
ssize_t csystem_send(int fd, const void *buffer, size_t length);

/// pthread_setname_np(pthread_self(), name).
int csystem_set_thread_name(const char *name);

/// setpriority(PRIO_PROCESS, gettid(), nice): the calling thread's own nice value (Linux keeps one
/// per thread). Raising it needs no privilege; lowering it again usually does, so a thread whose
/// priority is lowered should keep it for its life. 0 or -1 with errno.
int csystem_set_thread_nice(int nice);

/// The processes' allocator is jemalloc, linked into every program that uses this module: its
/// malloc, free and friends replace glibc's for the whole process. Why: glibc kept what a
/// large, short-lived job (an index build, a merge: hundreds of megabytes) and churning caches
/// freed, scattered over its arenas, and a serving node's resident memory grew 13-32% over a
/// 30-minute soak while the heap in use stayed flat, even with fixed thresholds and a periodic
/// malloc_trim. jemalloc returns dirty pages to the kernel after a decay time, by itself.
/// Operators tune it with MALLOC_CONF (e.g. `MALLOC_CONF=dirty_decay_ms:1000`), as jemalloc
/// documents.

/// 1 when jemalloc is the process's allocator, 0 when the program was linked without it (the
/// fuzz targets, under the address sanitizer): the functions below then use glibc's malloc_trim
/// and mallinfo2, and csystem_tune_allocator refuses.
int csystem_allocator_is_jemalloc(void);

/// Purges every arena's dirty pages now (`arena.<all>.purge`) instead of after their decay time:
/// after a build, whose freed memory would otherwise stay resident for the decay time. 1 if
/// purged, 0 if jemalloc refused.
int csystem_release_free_memory(void);

/// A serving process's allocator settings: a background thread that purges dirty pages when
/// their decay time has passed (without it, pages are purged only when the owning arena
/// allocates again, so an idle arena keeps them), and `dirty_decay_ms` for every arena. 0, or
/// -1 if jemalloc refused a setting.
int csystem_tune_allocator(long dirty_decay_ms);

/// The allocator's own account (jemalloc `stats.allocated` and `stats.resident`, after an
/// `epoch` refresh): bytes handed out and not yet freed (`in_use`), and bytes resident beyond
/// them (`free_bytes`: freed pages not yet purged, and the allocator's metadata). What resident
/// memory alone cannot tell apart: a leak (in_use grows) from memory kept for reuse (free grows).
/// For scrapes, not for the request path.
void csystem_heap_statistics(uint64_t *in_use, uint64_t *free_bytes);

/// The CLOCK_MONOTONIC time in nanoseconds.
uint64_t csystem_monotonic_ns(void);

/// Asks the CPU to bring the cache line at `address` in for reading, without waiting for it: a
/// loop that visits records in an order unrelated to their places in memory (a sort's arena read
/// in key order) asks for the record a few steps ahead, so that its load overlaps the work on
/// this one. Never faults, whatever the address.
static inline void csystem_prefetch(const void *address) { __builtin_prefetch(address, 0, 3); }


#endif
