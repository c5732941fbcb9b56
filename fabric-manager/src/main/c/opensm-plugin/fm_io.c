/*
 * The socket to the daemon: non-blocking, every wait bounded by a deadline, so that neither OpenSM's state manager
 * (a routing pass) nor the channel thread waits for the daemon longer than it was told.
 */
#include "fm_plugin.h"

int fm_connect(const char *path, int *err)
{
	struct sockaddr_un addr;
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

	if (fd < 0) {
		*err = errno;
		return -1;
	}
	memset(&addr, 0, sizeof(addr));
	addr.sun_family = AF_UNIX;
	strncpy(addr.sun_path, path, sizeof(addr.sun_path) - 1);
	if (connect(fd, (struct sockaddr *) &addr, sizeof(addr)) < 0) {
		*err = errno;
		close(fd);
		return -1;
	}
	return fd;
}

int fm_absent(int err)
{
	/* EAGAIN: the daemon's backlog is full, as good as away for this pass */
	return err == ECONNREFUSED || err == ENOENT || err == EAGAIN;
}

/* waits for events on fd until the deadline; the events seen, or 0 on timeout or error */
static short wait_for(int fd, short events, int64_t deadline)
{
	struct pollfd pfd = { .fd = fd, .events = events };
	int64_t left;
	int rc;

	for (;;) {
		left = deadline - now_ms();
		if (left <= 0)
			return 0;
		rc = poll(&pfd, 1, left > 1000 ? 1000 : (int) left);
		if (rc > 0)
			return pfd.revents;
		if (rc < 0 && errno != EINTR)
			return 0;
	}
}

int fm_write_all(int fd, const uint8_t *p, size_t n, int64_t deadline)
{
	ssize_t w;

	while (n > 0) {
		w = send(fd, p, n, MSG_NOSIGNAL);
		if (w > 0) {
			p += w;
			n -= (size_t) w;
		} else if (w < 0 && (errno == EAGAIN || errno == EINTR)) {
			if (!(wait_for(fd, POLLOUT, deadline) & POLLOUT))
				return -1;
		} else {
			return -1;
		}
	}
	return 0;
}

/*
 * Sends a routing pass's subnet. The daemon may answer before it has read it all (TOO_LARGE comes right after the
 * header, then the daemon closes): a readable socket, a hang-up or a send failing on the closed connection stop the
 * sending with FM_IO_ANSWERED, and the answer waiting in the socket is read then.
 */
enum fm_io fm_send_subnet(int fd, const uint8_t *p, size_t n, int64_t deadline, int *err)
{
	ssize_t w;
	short seen;

	while (n > 0) {
		w = send(fd, p, n, MSG_NOSIGNAL);
		if (w > 0) {
			p += w;
			n -= (size_t) w;
		} else if (w < 0 && (errno == EAGAIN || errno == EINTR)) {
			seen = wait_for(fd, POLLOUT | POLLIN, deadline);
			if (seen & (POLLIN | POLLHUP | POLLERR))
				return FM_IO_ANSWERED;
			if (!seen)
				return FM_IO_LATE;
		} else if (w < 0 && (errno == EPIPE || errno == ECONNRESET)) {
			return FM_IO_ANSWERED;
		} else {
			*err = w < 0 ? errno : EIO;
			return FM_IO_ERROR;
		}
	}
	return FM_IO_DONE;
}

enum fm_io fm_read_frame(int fd, struct fm_reader *r, int64_t deadline, enum fm_read *st, int *err)
{
	uint8_t *at;
	size_t n;
	ssize_t got;

	for (;;) {
		fm_reader_next(r, &at, &n);
		got = recv(fd, at, n, 0);
		if (got > 0) {
			*st = fm_reader_got(r, (size_t) got);
			if (*st == FM_READ_FRAME)
				return FM_IO_DONE;
			if (*st != FM_READ_MORE)
				return FM_IO_BAD;
		} else if (got < 0 && (errno == EAGAIN || errno == EINTR)) {
			if (now_ms() >= deadline || !wait_for(fd, POLLIN, deadline))
				return FM_IO_LATE;
		} else if (got == 0 || errno == ECONNRESET) {
			return r->have ? FM_IO_CUT : FM_IO_CLOSED;
		} else {
			*err = errno;
			return FM_IO_ERROR;
		}
	}
}
