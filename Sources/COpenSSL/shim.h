// The system's OpenSSL 3 (libssl, libcrypto) for the HTTP module's TLS.
// Macros that Swift cannot import are wrapped as static inline functions,
// and the socket BIO is our own so that writes use MSG_NOSIGNAL.
#ifndef SIGNALBOX_COPENSSL_SHIM_H
#define SIGNALBOX_COPENSSL_SHIM_H

#include <errno.h>
#include <stdint.h>
#include <sys/socket.h>
#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

static inline long sb_SSL_CTX_set_min_proto_version(SSL_CTX *ctx, int version) {
    return SSL_CTX_set_min_proto_version(ctx, version);
}

static inline long sb_SSL_CTX_set_max_proto_version(SSL_CTX *ctx, int version) {
    return SSL_CTX_set_max_proto_version(ctx, version);
}

static inline long sb_SSL_CTX_set_mode(SSL_CTX *ctx, long mode) {
    return SSL_CTX_set_mode(ctx, mode);
}

static inline long sb_SSL_set_tlsext_host_name(SSL *ssl, const char *name) {
    return SSL_set_tlsext_host_name(ssl, name);
}

static inline long sb_SSL_CTX_set_read_ahead(SSL_CTX *ctx, long yes) {
    return SSL_CTX_set_read_ahead(ctx, yes);
}

/// Options of every server context: no compression, no renegotiation, and
/// no TLS below 1.2 even if the protocol bounds were changed.
static inline uint64_t sb_server_options(void) {
    return SSL_OP_NO_COMPRESSION | SSL_OP_NO_RENEGOTIATION | SSL_OP_NO_SSLv3 | SSL_OP_NO_TLSv1
        | SSL_OP_NO_TLSv1_1;
}

/// Partial writes (the connection keeps its own offset) from a buffer that
/// may move between retries (it can grow while a write waits); record
/// buffers freed while a connection is idle (as nginx does): 16 instead of
/// 33 KiB per idle keep-alive or event-stream connection, for about 1,700
/// more instructions per request (callgrind, /json).
static inline long sb_server_modes(void) {
    return SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER | SSL_MODE_RELEASE_BUFFERS;
}

// MARK: ALPN

static int sb_alpn_select_http11(SSL *ssl, const unsigned char **out, unsigned char *outlen,
                                 const unsigned char *in, unsigned int inlen, void *arg) {
    (void)ssl;
    (void)arg;
    static const unsigned char http11[] = "\x08http/1.1";
    unsigned char *selected = NULL;
    if (SSL_select_next_proto(&selected, outlen, http11, sizeof(http11) - 1, in, inlen)
        == OPENSSL_NPN_NEGOTIATED) {
        *out = selected;
        return SSL_TLSEXT_ERR_OK;
    }
    // A client that offers only other protocols continues without ALPN.
    return SSL_TLSEXT_ERR_NOACK;
}

/// Makes the server choose `http/1.1` when the client offers it.
static inline void sb_SSL_CTX_select_http11(SSL_CTX *ctx) {
    SSL_CTX_set_alpn_select_cb(ctx, sb_alpn_select_http11, NULL);
}

// MARK: A socket BIO that never raises SIGPIPE

static int sb_bio_write(BIO *bio, const char *data, int length) {
    int fd = (int)(intptr_t)BIO_get_data(bio);
    BIO_clear_retry_flags(bio);
    ssize_t count;
    do {
        count = send(fd, data, (size_t)length, MSG_NOSIGNAL);
    } while (count < 0 && errno == EINTR);
    if (count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) BIO_set_retry_write(bio);
    return (int)count;
}

static int sb_bio_read(BIO *bio, char *data, int length) {
    int fd = (int)(intptr_t)BIO_get_data(bio);
    BIO_clear_retry_flags(bio);
    ssize_t count;
    do {
        count = recv(fd, data, (size_t)length, 0);
    } while (count < 0 && errno == EINTR);
    if (count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) BIO_set_retry_read(bio);
    return (int)count;
}

static long sb_bio_ctrl(BIO *bio, int command, long number, void *pointer) {
    (void)bio;
    (void)number;
    (void)pointer;
    switch (command) {
    case BIO_CTRL_FLUSH:
    case BIO_CTRL_DUP:
        return 1;
    default:
        return 0;
    }
}

static int sb_bio_create(BIO *bio) {
    BIO_set_init(bio, 1);
    return 1;
}

/// The socket BIO's methods; make them once and share them (they are never freed).
static inline BIO_METHOD *sb_bio_method_new(void) {
    BIO_METHOD *method = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK, "signalbox socket");
    if (method == NULL) return NULL;
    BIO_meth_set_write(method, sb_bio_write);
    BIO_meth_set_read(method, sb_bio_read);
    BIO_meth_set_ctrl(method, sb_bio_ctrl);
    BIO_meth_set_create(method, sb_bio_create);
    return method;
}

/// Reads and writes `fd` (non-blocking) for `ssl` with recv/send(MSG_NOSIGNAL),
/// through `method` from sb_bio_method_new. The descriptor stays open when
/// the SSL object is freed. Returns 0 on failure.
static inline int sb_SSL_set_socket(SSL *ssl, int fd, const BIO_METHOD *method) {
    BIO *bio = BIO_new(method);
    if (bio == NULL) return 0;
    BIO_set_data(bio, (void *)(intptr_t)fd);
    SSL_set_bio(ssl, bio, bio);
    return 1;
}

#endif
