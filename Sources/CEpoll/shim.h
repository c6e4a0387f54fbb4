// Linux's epoll, which the C library's Swift module leaves out; empty elsewhere
// (Darwin's kqueue comes with Darwin).
#ifdef __linux__
#include <sys/epoll.h>
#endif
