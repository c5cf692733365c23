#define _GNU_SOURCE
#include "csystem.h"

#include <errno.h>
#include <malloc.h>
#include <stdbool.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

const uint32_t CSYSTEM_EPOLLIN = EPOLLIN;
const uint32_t CSYSTEM_EPOLLOUT = EPOLLOUT;
const uint32_t CSYSTEM_EPOLLERR = EPOLLERR;
const uint32_t CSYSTEM_EPOLLHUP = EPOLLHUP;
const uint32_t CSYSTEM_EPOLLRDHUP = EPOLLRDHUP;

int csystem_epoll_create(void) { return epoll_create1(EPOLL_CLOEXEC); }

static int csystem_epoll_ctl(int epfd, int op, int fd, uint32_t events, uint64_t token) {
    struct epoll_event ev;
    memset(&ev, 0, sizeof ev);
    ev.events = events;
    ev.data.u64 = token;
    return epoll_ctl(epfd, op, fd, &ev);
}

int csystem_epoll_add(int epfd, int fd, uint32_t events, uint64_t token) {
    return csystem_epoll_ctl(epfd, EPOLL_CTL_ADD, fd, events, token);
}

int csystem_epoll_modify(int epfd, int fd, uint32_t events, uint64_t token) {
    return csystem_epoll_ctl(epfd, EPOLL_CTL_MOD, fd, events, token);
}

int csystem_epoll_remove(int epfd, int fd) { return csystem_epoll_ctl(epfd, EPOLL_CTL_DEL, fd, 0, 0); }

int csystem_epoll_wait(int epfd, csystem_event *out, int capacity, int timeout_ms) {
    struct epoll_event events[64];
    if (capacity > 64) capacity = 64;
    int n = epoll_wait(epfd, events, capacity, timeout_ms);
    for (int i = 0; i < n; i++) {
        out[i].token = events[i].data.u64;
        out[i].events = events[i].events;
    }
    return n;
}

int csystem_accept(int fd) { return accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC); }

int csystem_tcp_socket(int family) {
    return socket(family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, IPPROTO_TCP);
}

int csystem_eventfd(void) { return eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC); }

int csystem_eventfd_signal(int fd) {
    uint64_t one = 1;
    ssize_t n = write(fd, &one, sizeof one);
    // EAGAIN means the counter is saturated: the loop is going to wake up anyway.
    if (n < 0 && errno != EAGAIN) return -1;
    return 0;
}

int csystem_eventfd_drain(int fd) {
    uint64_t value;
    ssize_t n = read(fd, &value, sizeof value);
    if (n < 0 && errno != EAGAIN) return -1;
    return 0;
}

int csystem_set_int_option(int fd, int level, int name, int value) {
    return setsockopt(fd, level, name, &value, sizeof value);
}

int csystem_set_reuseaddr(int fd) { return csystem_set_int_option(fd, SOL_SOCKET, SO_REUSEADDR, 1); }

int csystem_set_nodelay(int fd) { return csystem_set_int_option(fd, IPPROTO_TCP, TCP_NODELAY, 1); }

int csystem_socket_error(int fd, int *error) {
    socklen_t length = sizeof *error;
    return getsockopt(fd, SOL_SOCKET, SO_ERROR, error, &length);
}

static int csystem_port_of(const struct sockaddr_storage *address) {
    if (address->ss_family == AF_INET) return ntohs(((const struct sockaddr_in *)address)->sin_port);
    if (address->ss_family == AF_INET6) return ntohs(((const struct sockaddr_in6 *)address)->sin6_port);
    return -1;
}

int csystem_listen(const char *host, int port, int backlog, int *bound_port) {
    struct addrinfo hints, *result = NULL;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE | AI_NUMERICHOST | AI_NUMERICSERV;
    char service[16];
    snprintf(service, sizeof service, "%d", port);
    if (getaddrinfo(host, service, &hints, &result) != 0 || result == NULL) {
        errno = EINVAL;
        return -1;
    }
    int fd = csystem_tcp_socket(result->ai_family);
    if (fd < 0) { freeaddrinfo(result); return -1; }
    if (csystem_set_reuseaddr(fd) != 0 || bind(fd, result->ai_addr, result->ai_addrlen) != 0 ||
        listen(fd, backlog) != 0) {
        int saved = errno;
        freeaddrinfo(result);
        close(fd);
        errno = saved;
        return -1;
    }
    freeaddrinfo(result);
    struct sockaddr_storage address;
    socklen_t length = sizeof address;
    if (getsockname(fd, (struct sockaddr *)&address, &length) != 0) {
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    *bound_port = csystem_port_of(&address);
    return fd;
}

int csystem_connect(const char *host, int port, int *gai_error) {
    struct addrinfo hints, *result = NULL;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_NUMERICSERV;
    char service[16];
    snprintf(service, sizeof service, "%d", port);
    *gai_error = getaddrinfo(host, service, &hints, &result);
    if (*gai_error != 0 || result == NULL) {
        errno = EHOSTUNREACH;
        return -1;
    }
    int fd = csystem_tcp_socket(result->ai_family);
    if (fd < 0) { freeaddrinfo(result); return -1; }
    // On a nonblocking socket EINTR, like EINPROGRESS, means the connect goes on in the background.
    int rc = connect(fd, result->ai_addr, result->ai_addrlen);
    int saved = errno;
    freeaddrinfo(result);
    if (rc != 0 && saved != EINPROGRESS && saved != EINTR) {
        close(fd);
        errno = saved;
        return -1;
    }
    return fd;
}

ssize_t csystem_send(int fd, const void *buffer, size_t length) {
    return send(fd, buffer, length, MSG_NOSIGNAL);
}

uint64_t csystem_monotonic_ns(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}

int csystem_set_thread_name(const char *name) { return pthread_setname_np(pthread_self(), name); }

// jemalloc's control interface (jemalloc/jemalloc.h), declared weak rather than included: a
// program linked without jemalloc (the fuzz targets, built with the address sanitizer, whose own
// malloc must stay) still links, and these functions then fall back to glibc's equivalents.
// The header is not included because its malloc_usable_size prototype conflicts with malloc.h's.
extern int mallctl(const char *name, void *oldp, size_t *oldlenp, void *newp, size_t newlen) __attribute__((weak));
// MALLCTL_ARENAS_ALL in jemalloc 5: "every arena" in arena.<i>.* names.
#define CSYSTEM_ARENAS_ALL 4096u

int csystem_allocator_is_jemalloc(void) { return mallctl != NULL; }

int csystem_release_free_memory(void) {
    if (mallctl == NULL) return malloc_trim(0);
    // Every arena's dirty pages back to the kernel now, rather than after their decay time.
    char name[64];
    snprintf(name, sizeof name, "arena.%u.purge", CSYSTEM_ARENAS_ALL);
    return mallctl(name, NULL, NULL, NULL, 0) == 0 ? 1 : 0;
}

int csystem_tune_allocator(long dirty_decay_ms) {
    if (mallctl == NULL) return -1;
    bool enable = true;
    if (mallctl("background_thread", NULL, NULL, &enable, sizeof enable) != 0) return -1;
    ssize_t decay = (ssize_t)dirty_decay_ms;
    // New arenas, then the ones that exist already.
    if (mallctl("arenas.dirty_decay_ms", NULL, NULL, &decay, sizeof decay) != 0) return -1;
    unsigned arenas = 0;
    size_t size = sizeof arenas;
    if (mallctl("arenas.narenas", &arenas, &size, NULL, 0) != 0) return -1;
    for (unsigned i = 0; i < arenas; i++) {
        char name[64];
        snprintf(name, sizeof name, "arena.%u.dirty_decay_ms", i);
        // An arena index that was never initialised refuses (EFAULT): nothing to set there.
        (void)mallctl(name, NULL, NULL, &decay, sizeof decay);
    }
    return 0;
}

void csystem_heap_statistics(uint64_t *in_use, uint64_t *free_bytes) {
    if (mallctl == NULL) {
        struct mallinfo2 info = mallinfo2();
        *in_use = (uint64_t)info.uordblks + (uint64_t)info.hblkhd;
        *free_bytes = (uint64_t)info.fordblks;
        return;
    }
    // jemalloc's statistics are a snapshot taken when the epoch advances.
    uint64_t epoch = 1;
    size_t size = sizeof epoch;
    mallctl("epoch", &epoch, &size, &epoch, size);
    size_t allocated = 0, resident = 0;
    size = sizeof allocated;
    if (mallctl("stats.allocated", &allocated, &size, NULL, 0) != 0) allocated = 0;
    size = sizeof resident;
    if (mallctl("stats.resident", &resident, &size, NULL, 0) != 0) resident = allocated;
    *in_use = (uint64_t)allocated;
    *free_bytes = resident > allocated ? (uint64_t)(resident - allocated) : 0;
}

int csystem_set_thread_nice(int nice) { return setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), nice); }
