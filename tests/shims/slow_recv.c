// Preloaded into one process under test (LD_PRELOAD): every recv() that returns bytes takes
// 200 µs longer, so that process reads slower than a client that streams to it, as a loaded
// machine can make it. Races between reading and writing one socket then happen at once instead
// of once in a few thousand runs (tests/e2e/http_conventions_test.cc).
#define _GNU_SOURCE
#include <dlfcn.h>
#include <sys/socket.h>
#include <time.h>

typedef ssize_t (*recv_function)(int, void*, size_t, int);

ssize_t recv(int socket, void* buffer, size_t length, int flags) {
  static recv_function real_recv = NULL;
  if (real_recv == NULL) real_recv = (recv_function)dlsym(RTLD_NEXT, "recv");
  const ssize_t count = real_recv(socket, buffer, length, flags);
  if (count > 0) {
    const struct timespec delay = {0, 200 * 1000};
    nanosleep(&delay, NULL);
  }
  return count;
}
