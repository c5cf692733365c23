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

/// malloc_trim(0): hands the heap's free memory back to the kernel. glibc keeps what a large,
/// short-lived job (an index build: hundreds of megabytes of entries and postings) freed in its
/// arenas for reuse, so a serving process's resident memory would otherwise stay at the build's
/// peak. 1 if memory was released, 0 if none could be.
int csystem_release_free_memory(void);

/// mallopt(M_MMAP_THRESHOLD) and mallopt(M_TRIM_THRESHOLD): allocations of at least
/// `mmap_threshold` bytes get mappings of their own (returned to the kernel when freed), and an
/// arena gives back its free top beyond `trim_threshold`. Setting them turns off glibc's dynamic
/// thresholds, which rise after the first large block is freed (to 32 MiB and 64 MiB): after an
/// index build or a merge, a serving process would otherwise keep tens of megabytes of freed heap
/// resident in every arena. 0, or -1 if glibc refused a value.
int csystem_tune_allocator(size_t mmap_threshold, size_t trim_threshold);

/// The allocator's own account (glibc mallinfo2): bytes handed out and not yet freed (`in_use`,
/// large mmap'ed blocks included) and bytes freed but kept in the arenas for reuse (`free_bytes`). What resident memory cannot
/// tell apart: a leak (in_use grows) from fragmentation (free grows). Takes every arena's lock:
/// for scrapes, not for the request path.
void csystem_heap_statistics(uint64_t *in_use, uint64_t *free_bytes);

/// The CLOCK_MONOTONIC time in nanoseconds.
uint64_t csystem_monotonic_ns(void);

#endif
