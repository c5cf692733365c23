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

// Loads a PEM certificate chain and its private key into a context; 1 on success.
static inline int copenssl_use_certificate(SSL_CTX *context, const char *certificateChain, const char *privateKey) {
    return SSL_CTX_use_certificate_chain_file(context, certificateChain) == 1
        && SSL_CTX_use_PrivateKey_file(context, privateKey, SSL_FILETYPE_PEM) == 1
        && SSL_CTX_check_private_key(context) == 1;
}

// A context that could not be set up: OpenSSL's reason into `error`, the context freed, NULL.
static inline SSL_CTX *copenssl_context_failed(SSL_CTX *context, char *error, size_t errorLength) {
    ERR_error_string_n(ERR_get_error(), error, errorLength);
    ERR_clear_error();
    if (context != NULL) SSL_CTX_free(context);
    return NULL;
}

// A server context from PEM files (a certificate chain and its key), TLS 1.2 or newer, with ALPN.
// NULL on failure, with OpenSSL's reason in `error`.
static inline SSL_CTX *copenssl_server_context(const char *certificateChain, const char *privateKey,
                                               char *error, size_t errorLength) {
    SSL_CTX *context = SSL_CTX_new(TLS_server_method());
    if (context == NULL) goto fail;
    if (SSL_CTX_set_min_proto_version(context, TLS1_2_VERSION) != 1) goto fail;
    if (!copenssl_use_certificate(context, certificateChain, privateKey)) goto fail;
    SSL_CTX_set_alpn_select_cb(context, copenssl_alpn_select, NULL);
    return context;
fail:
    return copenssl_context_failed(context, error, errorLength);
}

// Gives `ssl` two memory BIOs (bytes in from the socket, bytes out to it), which it then owns, and
// returns it; on allocation failure frees it and returns NULL.
static inline SSL *copenssl_attach_memory_bios(SSL *ssl, BIO **input, BIO **output) {
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
    *input = in;
    *output = out;
    return ssl;
}

// One server-side session over memory BIOs. NULL on allocation failure.
static inline SSL *copenssl_server_session(SSL_CTX *context, BIO **input, BIO **output) {
    SSL *ssl = SSL_new(context);
    if (ssl == NULL) return NULL;
    SSL_set_accept_state(ssl);
    return copenssl_attach_memory_bios(ssl, input, output);
}

// Makes a server context ask every client for a certificate signed by the authorities in
// `certificateAuthorities` (PEM) and refuse the handshake without one (mutual TLS). 1 on success.
static inline int copenssl_server_require_client_certificates(SSL_CTX *context, const char *certificateAuthorities,
                                                              char *error, size_t errorLength) {
    if (SSL_CTX_load_verify_locations(context, certificateAuthorities, NULL) != 1) goto fail;
    STACK_OF(X509_NAME) *names = SSL_load_client_CA_file(certificateAuthorities);
    if (names == NULL) goto fail;
    SSL_CTX_set_client_CA_list(context, names);
    SSL_CTX_set_verify(context, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, NULL);
    return 1;
fail:
    ERR_error_string_n(ERR_get_error(), error, errorLength);
    ERR_clear_error();
    return 0;
}

// The protocol a client offers in ALPN: HTTP/2 only (RFC 7301 wire format).
static const unsigned char copenssl_client_protocols[] = "\x02h2";

// A client context that trusts the authorities in `certificateAuthorities` (PEM) and nothing else,
// TLS 1.2 or newer, offering h2; with `certificateChain` and `privateKey` (both or neither) it
// presents that certificate to servers that ask (mutual TLS). NULL on failure, with the reason.
static inline SSL_CTX *copenssl_client_context(const char *certificateAuthorities, const char *certificateChain,
                                               const char *privateKey, char *error, size_t errorLength) {
    SSL_CTX *context = SSL_CTX_new(TLS_client_method());
    if (context == NULL) goto fail;
    if (SSL_CTX_set_min_proto_version(context, TLS1_2_VERSION) != 1) goto fail;
    if (SSL_CTX_load_verify_locations(context, certificateAuthorities, NULL) != 1) goto fail;
    SSL_CTX_set_verify(context, SSL_VERIFY_PEER, NULL);
    if (certificateChain != NULL && !copenssl_use_certificate(context, certificateChain, privateKey)) goto fail;
    // (0 is success here, unlike the calls above.)
    if (SSL_CTX_set_alpn_protos(context, copenssl_client_protocols, sizeof(copenssl_client_protocols) - 1) != 0) goto fail;
    return context;
fail:
    return copenssl_context_failed(context, error, errorLength);
}

// One client-side session over two memory BIOs, verifying that the server's certificate names
// `host`: an IP address (isAddress 1, checked against the certificate's IP entries) or a DNS name
// (also sent as SNI). NULL on failure.
static inline SSL *copenssl_client_session(SSL_CTX *context, const char *host, int isAddress, BIO **input, BIO **output) {
    SSL *ssl = SSL_new(context);
    if (ssl == NULL) return NULL;
    int named = isAddress ? X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), host)
                          : (SSL_set_tlsext_host_name(ssl, host) == 1 && SSL_set1_host(ssl, host) == 1);
    if (!named) {
        SSL_free(ssl);
        return NULL;
    }
    SSL_set_connect_state(ssl);
    return copenssl_attach_memory_bios(ssl, input, output);
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
