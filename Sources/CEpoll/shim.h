/* Linux headers Glibc's Swift module does not export: epoll, eventfd, signal masks. */
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <signal.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

/* accept4(2) is declared only under _GNU_SOURCE, which Glibc's module is not built with. */
extern int accept4(int sockfd, struct sockaddr *addr, socklen_t *addrlen, int flags);
static inline int cepoll_accept4(int fd, int flags) { return accept4(fd, 0, 0, flags); }
