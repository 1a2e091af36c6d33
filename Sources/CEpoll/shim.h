/* Linux headers Glibc's Swift module does not export: epoll, eventfd, signal masks. */
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <signal.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <arpa/inet.h>

/* accept4(2) is declared only under _GNU_SOURCE, which Glibc's module is not built with. */
extern int accept4(int sockfd, struct sockaddr *addr, socklen_t *addrlen, int flags);
/* accept4 that also gives the peer's address. */
static inline int cepoll_accept4_peer(int fd, int flags, struct sockaddr_storage *peer) {
    socklen_t length = sizeof *peer;
    return accept4(fd, (struct sockaddr *)peer, &length, flags);
}
