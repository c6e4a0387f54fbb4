// Linux's epoll, which the C library's Swift module leaves out; empty elsewhere
// (Darwin's kqueue comes with Darwin).
#ifdef __linux__
#include <sys/epoll.h>
#include <sys/socket.h>

// accept4, which glibc declares only under _GNU_SOURCE (the C library's Swift module is built
// without it): the server's accepted sockets are close-on-exec and non-blocking from the start,
// with no moment in which a fork could hand them to a child.
extern int accept4(int fd, struct sockaddr *address, socklen_t *length, int flags);
#endif
