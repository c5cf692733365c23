// OpenSSL (Debian's libssl-dev): libcrypto's HMAC-SHA256 for search keys (the Wire module), and
// libssl's TLS for the HTTP/2 server (the HTTP2 module). Macros and C callbacks Swift cannot
// import or write are wrapped below as static inline functions with the copenssl_ prefix.
#ifndef COPENSSL_SHIM_H
#define COPENSSL_SHIM_H

#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/ssl.h>

// The protocols a server offers in ALPN, in its order of preference (RFC 7301 wire format).
static const unsigned char copenssl_server_protocols[] = "\x02h2\x08http/1.1";

// ALPN selection: the first of ours the client offers. A client that offers neither (or no ALPN)
// gets none, and the server's protocol sniffer decides from its first bytes, as on cleartext.
static int copenssl_alpn_select(SSL *ssl, const unsigned char **out, unsigned char *outlen,
                                const unsigned char *in, unsigned int inlen, void *arg) {
    (void)ssl;
    (void)arg;
    unsigned char *selected = NULL;
    if (SSL_select_next_proto(&selected, outlen, copenssl_server_protocols, sizeof(copenssl_server_protocols) - 1,
                              in, inlen) != OPENSSL_NPN_NEGOTIATED) {
        return SSL_TLSEXT_ERR_NOACK;
    }
    *out = selected;
    return SSL_TLSEXT_ERR_OK;
}

// A server context from PEM files (a certificate chain and its key), TLS 1.2 or newer, with ALPN.
// NULL on failure, with OpenSSL's reason in `error`.
static inline SSL_CTX *copenssl_server_context(const char *certificateChain, const char *privateKey,
                                               char *error, size_t errorLength) {
    SSL_CTX *context = SSL_CTX_new(TLS_server_method());
    if (context == NULL) goto fail;
    if (SSL_CTX_set_min_proto_version(context, TLS1_2_VERSION) != 1) goto fail;
    if (SSL_CTX_use_certificate_chain_file(context, certificateChain) != 1) goto fail;
    if (SSL_CTX_use_PrivateKey_file(context, privateKey, SSL_FILETYPE_PEM) != 1) goto fail;
    if (SSL_CTX_check_private_key(context) != 1) goto fail;
    SSL_CTX_set_alpn_select_cb(context, copenssl_alpn_select, NULL);
    return context;
fail:
    ERR_error_string_n(ERR_get_error(), error, errorLength);
    ERR_clear_error();
    if (context != NULL) SSL_CTX_free(context);
    return NULL;
}

// One server-side session over two memory BIOs (bytes in from the socket, bytes out to it), which
// the session owns. NULL on allocation failure.
static inline SSL *copenssl_server_session(SSL_CTX *context, BIO **input, BIO **output) {
    SSL *ssl = SSL_new(context);
    if (ssl == NULL) return NULL;
    BIO *in = BIO_new(BIO_s_mem());
    BIO *out = BIO_new(BIO_s_mem());
    if (in == NULL || out == NULL) {
        BIO_free(in);
        BIO_free(out);
        SSL_free(ssl);
        return NULL;
    }
    // An empty input BIO reads as "retry later", not EOF: the socket may simply have no more yet.
    BIO_set_mem_eof_return(in, -1);
    SSL_set_bio(ssl, in, out);
    SSL_set_accept_state(ssl);
    *input = in;
    *output = out;
    return ssl;
}

static inline int copenssl_bio_pending(BIO *bio) { return (int)BIO_pending(bio); }

// The last error on this thread's queue, as text, and the queue cleared.
static inline void copenssl_error(char *error, size_t errorLength) {
    unsigned long code = ERR_get_error();
    if (code == 0) {
        snprintf(error, errorLength, "unknown TLS error");
    } else {
        ERR_error_string_n(code, error, errorLength);
    }
    ERR_clear_error();
}

#endif
