/*
 * The exchange's socket against a daemon that answers before reading the subnet (fuzz.sh runs it once, under the
 * same sanitizers as the fuzz targets): a subnet far larger than the socket's buffers, the daemon reading its header
 * only, then answering TOO_LARGE and closing, as the daemon does above opensm.maxSubnetBytes. The plug-in must stop
 * sending and read the refusal, not take the closed connection for a daemon away; a daemon that closes after the
 * header without a word is away; one that reads it all answers as usual.
 */
#include "fuzz_common.h"

#define SUBNET_BYTES (16u << 20)

enum daemon_kind { REFUSES_EARLY, CLOSES_EARLY, READS_ALL };

struct daemon {
	int listener;
	enum daemon_kind kind;
};

static void *daemon_main(void *arg)
{
	struct daemon *d = arg;
	struct fm_buf b = { 0 };
	uint8_t head[FM_HEADER], *rest;
	size_t got = 0, length;
	ssize_t r;
	int fd = accept(d->listener, NULL, NULL);

	expect(fd >= 0, "the plug-in's connection");
	while (got < sizeof(head) && (r = recv(fd, head + got, sizeof(head) - got, 0)) > 0)
		got += (size_t) r;
	expect(got == sizeof(head), "the subnet's header");
	if (d->kind == READS_ALL) {
		length = fm_get_u32(head + 8);
		rest = malloc(length);
		expect(rest != NULL, "memory for the subnet");
		for (got = 0; got < length && (r = recv(fd, rest, length - got, 0)) > 0; got += (size_t) r)
			;
		free(rest);
		expect(got == length, "the whole subnet");
	}
	if (d->kind != CLOSES_EARLY) {
		static const char reason[] = "frame of 16777228 bytes, above the limit of 1048576";

		fm_put_header(&b, FM_REFUSED, 0);
		fm_put_u64(&b, d->kind == REFUSES_EARLY ? 0 : FAKE_SEQ);
		fm_put_u16(&b, d->kind == REFUSES_EARLY ? FM_REFUSAL_TOO_LARGE : FM_REFUSAL_NOT_READY);
		for (got = 0; got < sizeof(reason) - 1; got++)
			fm_put_u8(&b, (uint8_t) reason[got]);
		fm_end_frame(&b, 0);
		expect(!b.failed && send(fd, b.data, b.len, MSG_NOSIGNAL) == (ssize_t) b.len, "the refusal sent");
		free(b.data);
	}
	close(fd);
	return NULL;
}

static enum fm_outcome exchange(const char *path, enum daemon_kind kind, enum fm_io *sent)
{
	struct fm_plugin *fm = fake_plugin();
	struct daemon d = { .kind = kind };
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	struct fm_reader in;
	struct fm_verdict v;
	enum fm_outcome outcome;
	enum fm_read st = FM_READ_MORE;
	uint8_t *subnet = calloc(SUBNET_BYTES, 1);
	int64_t deadline = now_ms() + 20000;
	pthread_t t;
	int fd, err = 0;

	struct fm_buf head = { 0 };

	expect(subnet != NULL, "memory for the subnet");
	fm_put_header(&head, FM_SUBNET, SUBNET_BYTES - FM_HEADER);
	expect(!head.failed, "the subnet's header");
	memcpy(subnet, head.data, FM_HEADER);
	free(head.data);
	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", path);
	unlink(path);
	d.listener = socket(AF_UNIX, SOCK_STREAM, 0);
	expect(d.listener >= 0 && !bind(d.listener, (struct sockaddr *) &addr, sizeof(addr)) && !listen(d.listener, 1),
	       "a socket listening");
	expect(!pthread_create(&t, NULL, daemon_main, &d), "the daemon's thread");
	fd = fm_connect(path, &err);
	expect(fd >= 0, "a connection");
	memset(&in, 0, sizeof(in));
	fm_answer_limits(fm, &in);
	*sent = fm_send_subnet(fd, subnet, SUBNET_BYTES, deadline, &err);
	memset(&v, 0, sizeof(v));
	switch (fm_read_frame(fd, &in, deadline, &st, &err)) {
	case FM_IO_DONE:
		outcome = fm_answer_take(fm, &in, &v);
		break;
	case FM_IO_CLOSED:
		outcome = FM_CLOSED;
		break;
	default:
		outcome = FM_MALFORMED;
		break;
	}
	close(fd);
	pthread_join(t, NULL);
	close(d.listener);
	unlink(path);
	fm_reader_reset(&in);
	free(subnet);
	return outcome;
}

int main(int argc, char **argv)
{
	enum fm_io sent;

	expect(argc == 2, "usage: early_answer SOCKET_PATH");
	expect(exchange(argv[1], REFUSES_EARLY, &sent) == FM_TOO_LARGE, "TOO_LARGE read after the header alone");
	expect(sent == FM_IO_ANSWERED, "the sending stopped by the answer");
	expect(exchange(argv[1], CLOSES_EARLY, &sent) == FM_CLOSED, "a daemon closing unanswered read as away");
	expect(sent == FM_IO_ANSWERED, "the sending stopped by the close");
	expect(exchange(argv[1], READS_ALL, &sent) == FM_NOT_READY, "a refusal after the whole subnet");
	expect(sent == FM_IO_DONE, "the whole subnet sent");
	printf("early answer: ok (TOO_LARGE before the subnet was read, closed unanswered, answered after it)\n");
	return 0;
}
