"""Libraries whose names say who owns what, by documented convention, whatever the preset.

A library here is a header (the folder it is in, and those below, are the library's headers)
and name patterns, each with the summary record its documentation gives every function so
named. A callee takes a library's record only where the library's own headers declare it: a
project's `foo_get1_bar` keeps the preset's reading. Code that calls such a library is found
beside any of GLib, CPython or TH, so every preset has them (`Conventions.libraries`); a record
in `[tool.refcheck.summaries]` still wins.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property

from refcheck.conventions.summary import Source, Summary
from refcheck.conventions.records import parse_record


@dataclass(frozen=True)
class Library:
    name: str
    # A header in the library's include folder (`opensslv.h`, in /usr/include/openssl/).
    header: str
    # (pattern, record) pairs, first match wins, records written as `[tool.refcheck.summaries]`.
    rules: tuple[tuple[str, Summary], ...]
    # (pattern, family) pairs: structs of the library that are one family (what one releaser
    # frees whatever the pointer's declared type).
    records: tuple[tuple[str, str], ...] = ()
    # The library declares everything in that one header, which sits beside every other
    # library's (SQLite's /usr/include/sqlite3.h): no folder is the library's, only the file.
    single: bool = False
    # The naming describes the library's every function (OpenSSL's get0/get1): what no pattern
    # matches is lent. False: only the records listed (cairo's copies), the rest of the library's
    # opaque handles unknown as before (`frontend.argtypes.opaque_unknown`).
    names_all: bool = True

    @cached_property
    def _compiled(self) -> tuple[tuple[re.Pattern, Summary], ...]:
        return tuple((re.compile(p), s) for p, s in self.rules)

    @cached_property
    def _answers(self) -> dict[str, Summary | None]:
        return {}

    def record(self, name: str) -> Summary | None:
        """The record of the first pattern `name` matches; None: the library says nothing."""
        # Asked for every call of every unit (the build, `relevance`): by name, once.
        answers = self._answers
        if name not in answers:
            if len(answers) > 100_000:
                answers.clear()
            answers[name] = next((s for pattern, s in self._compiled if pattern.search(name)), None)
        return answers[name]


    def record_family(self, record: str) -> str | None:
        """The family of a struct the library names so; None: the library says nothing."""
        for pattern, family in self.records:
            if re.search(pattern, record):
                return family
        return None


def library(name: str, header: str, rules: list[tuple[str, dict]], records: tuple = (), single: bool = False,
            names_all: bool = True) -> Library:
    where = f"libraries.{name}"
    return Library(name, header, tuple((p, parse_record(t, f"{where}: {p}", Source.CONVENTIONS)) for p, t in rules),
                   records, single, names_all)


_OWNED = {"returns": "owned"}
# Every tracked argument, as the name patterns' releasers: the call is lowered as one release
# whose family the parameter's struct says (`BIO_free_all (BIO *)`: bio_st, what BIO_new made).
_RELEASE = {"arguments": {"every": "release"}}

# OpenSSL's ownership names (its man pages: "get0" and "get1" in X509_get0_notBefore(3),
# SSL_get1_peer_certificate(3); d2i_X509(3); PEM_read_bio_PrivateKey(3); X509_new(3)'s
# X509_up_ref/X509_free; OPENSSL_malloc(3); DEFINE_STACK_OF(3)). The typed-stack and memory
# macros expand to the OPENSSL_sk_* and CRYPTO_* functions named here.
OPENSSL = library("openssl", "opensslv.h", [
    # "X509_up_ref() increments the reference count of a": returns 1 on success (an int).
    (r"_up_ref$", {"arguments": {"0": "retain"}}),
    # "sk_TYPE_pop_free() frees up all elements of sk and sk itself"; "BIO_free_all() frees up an
    # entire BIO chain"; X509_free, EVP_PKEY_free, CRYPTO_free (OPENSSL_free), CRYPTO_clear_free.
    (r"^BIO_free_all$|_pop_free$|^\w+_free$|^BIO_vfree$", _RELEASE),
    # "get0": an internal pointer, not to be freed; "get1": a new reference the caller frees
    # (SSL_get1_peer_certificate, OCSP_response_get1_basic, X509_get1_email).
    (r"_get0_", {"returns": "borrowed"}),
    (r"_get1_", _OWNED),
    # "d2i_TYPE() ... If *a is NULL a new TYPE structure is allocated": d2i_X509, d2i_PKCS12_bio,
    # d2i_OCSP_RESPONSE. (The reuse of *a is not modelled: it is rare and deprecated in style.)
    (r"^d2i_\w+$", _OWNED),
    # PEM_read_bio_X509, PEM_read_bio_PrivateKey, PEM_read_X509 ...: "return a pointer to the
    # structure read" (allocated when *x is NULL); PEM_read_bio/PEM_read/_ex fill out-parameters
    # and return an int.
    (r"^PEM_read_(?!bio$|bio_ex$|ex$)(?:bio_)?\w+$", _OWNED),
    # Constructors and copies: X509_new, BIO_new_mem_buf, OPENSSL_sk_new_null, X509_dup,
    # EVP_PKEY2PKCS8 ("converts a private key into a PKCS8_PRIV_KEY_INFO", allocated), and the
    # allocator behind OPENSSL_malloc/zalloc/strdup/strndup/memdup.
    (r"^\w+_(?:new|dup)(?:_ex|_null|_reserve)?$|^BIO_new_\w+$|^EVP_PKEY2PKCS8$|^EVP_PKCS82PKEY(?:_ex)?$",
     _OWNED),
    (r"^CRYPTO_(?:malloc|zalloc|strdup|strndup|memdup)$", _OWNED),
],
    # "STACK_OF(TYPE)" is `struct stack_st_TYPE`, which the sk_TYPE_* inlines cast to
    # OPENSSL_STACK (`struct stack_st`) for OPENSSL_sk_free and the rest (DEFINE_STACK_OF(3)):
    # a project's `STACK_OF(X509) *chain (void)` gives what sk_X509_free releases.
    records=((r"^stack_st(?:_\w+)?$", "stack_st"),))

# GnuTLS's handles (gnutls_x509_crt_init(3), gnutls_x509_trust_list_init(3), gnutls_pkcs7_init(3),
# gnutls_init(3), gnutls_priority_init(3), gnutls_hash_init(3)): "This function will initialize"
# the opaque handle (a pointer typedef) `*x`, returning 0 (GNUTLS_E_SUCCESS) or a negative error
# code; the matching `_deinit (x, ...)` frees it (its other arguments, gnutls_hash_deinit's digest
# buffer or trust_list_deinit's flag, are not released).
GNUTLS = library("gnutls", "gnutls.h", [
    # gnutls_certificate_set_trust_list(3): "The tlist becomes part of the credentials structure
    # and must not be deallocated" (glib-networking's gtlsdatabase-gnutls.c hands it over so).
    (r"^gnutls_certificate_set_trust_list$", {"arguments": {"1": "sink"}}),
    (r"^gnutls_(?:\w+_)?init$", {"arguments": {"0": {"effect": "acquire-out", "when": "zero"}}}),
    (r"^gnutls_(?:\w+_)?deinit$", {"arguments": {"0": "release"}}),
])

# SQLite's memory (sqlite3.h; "Formatted String Printing Functions": "sqlite3_mprintf() and
# sqlite3_vmprintf() write their results into memory obtained from sqlite3_malloc64(). The
# strings returned by these two routines should be released by sqlite3_free()";
# sqlite3_expanded_sql: "the string ... is held in memory obtained from sqlite3_malloc64() ...
# the caller must free it with sqlite3_free()"; sqlite3_str_finish: "returns a pointer to a
# memory buffer obtained from sqlite3_malloc64() ... the application must ... sqlite3_free()").
# GNOME daemons build their statements so (colord's `statement = sqlite3_mprintf (...)`).
SQLITE = library("sqlite", "sqlite3.h", [
    # sqlite3_serialize's copy is "obtained from sqlite3_malloc64()" (apsw frees it).
    (r"^sqlite3_(?:v?mprintf|malloc(?:64)?|expanded_sql|str_finish|serialize)$", _OWNED),
    (r"^sqlite3_free$", {"arguments": {"0": "release"}}),
    # The buffer a database is deserialized from is SQLite's with SQLITE_DESERIALIZE_FREEONCLOSE,
    # "even if sqlite3_deserialize() fails" (apsw's Connection_deserialize).
    (r"^sqlite3_deserialize$", {"arguments": {"2": "sink"}}),
], single=True)

# libdbus, the reference D-Bus library (dbus/dbus.h; its API reference): at-spi2-core's
# atspi and registryd, BlueZ, PulseAudio and Avahi call it directly. Its getters mostly lend
# (`dbus_message_get_path`: "The returned string becomes invalid if the message is modified or
# freed"), so the preset's `get` reading holds, except where the reference says otherwise:
# dbus_message_iter_get_signature, dbus_signature_iter_get_signature: "The returned string must
# be freed with dbus_free()"; dbus_address_escape_value/unescape_value: "newly-allocated ...
# value"; dbus_pending_call_steal_reply: "Ownership of the reply message passes to the caller";
# dbus_connection_pop_message: "The caller owns a reference to the returned message";
# dbus_connection_send_with_reply_and_block returns the reply its callers unref. dbus_malloc's
# memory is dbus_free's ("Frees a block of memory previously allocated by dbus_malloc()");
# dbus_message_ref/unref and dbus_pending_call_ref/unref count them.
LIBDBUS = library("libdbus", "dbus.h", [
    (r"^dbus_(?:message_iter|signature_iter)_get_signature$|^dbus_address_(?:un)?escape_value$", _OWNED),
    (r"^dbus_pending_call_steal_reply$|^dbus_connection_pop_message$"
     r"|^dbus_connection_send_with_reply_and_block$", _OWNED),
    # The connections are LIBDBUS_CONNECTIONS, the glib preset's only: dbus-python hands them to
    # `DBusPyConnection_NewConsumingDBusConnection`, which stores them in its object, a store the
    # cpython preset reads as a setter's, not a take-over (7 false). dbus_server_listen: not yet.
    (r"^dbus_malloc0?$", _OWNED),
    (r"^dbus_free$|^dbus_free_string_array$", {"arguments": {"0": "release"}}),
    # The messages' and pending calls' pairs, so that a preset without the `_ref`/`_unref`
    # patterns (cpython: dbus-python's bindings) sees the owned results above given back. Not the
    # connections' and servers' yet (their constructors are not here: see above).
    (r"^dbus_(?:message|pending_call)_unref$", {"arguments": {"0": "release"}}),
    (r"^dbus_(?:message|pending_call)_ref$",
     {"returns": "argument", "returned": 0, "arguments": {"0": "retain"}}),
])

LIBRARIES: tuple[Library, ...] = (OPENSSL, GNUTLS, SQLITE, LIBDBUS)

# libdbus's connections (its API reference): dbus_bus_get: "The caller of this function owns a
# reference to the bus"; dbus_bus_get_private: "Caller owns a reference to the bus";
# dbus_connection_open: "a new connection, or NULL on failure", dbus_connection_open_private
# likewise ("Unlike dbus_connection_open(), always creates a new connection"); "Decrements the
# reference count of a DBusConnection" (dbus_connection_unref). The glib preset's only: dbus-python
# (cpython preset) hands them to a constructor the cpython preset reads as a setter's store.
LIBDBUS_CONNECTIONS = library("libdbus-connections", "dbus.h", [
    (r"^dbus_bus_get(?:_private)?$|^dbus_connection_open(?:_private)?$", _OWNED),
    (r"^dbus_connection_unref$", {"arguments": {"0": "release"}}),
    (r"^dbus_connection_ref$", {"returns": "argument", "returned": 0, "arguments": {"0": "retain"}}),
], names_all=False)

# cairo's copies (its API reference): cairo_copy_path: "the copy of the current path. The caller
# owns the returned object and should call cairo_path_destroy() when finished with it" (so
# cairo_copy_path_flat); cairo_copy_clip_rectangle_list: "The caller must always call
# cairo_rectangle_list_destroy() on the result"; cairo_font_options_copy: "a newly allocated
# cairo_font_options_t. Free with cairo_font_options_destroy()". cairo_path_destroy: "Immediately
# releases all memory associated with path"; cairo_rectangle_list_destroy likewise.
CAIRO = library("cairo", "cairo.h", [
    (r"^cairo_copy_(?:path|path_flat|clip_rectangle_list)$|^cairo_font_options_copy$", _OWNED),
    (r"^cairo_(?:path|rectangle_list)_destroy$", {"arguments": {"0": "release"}}),
], names_all=False)

# libxml2's strings (its API reference, tree.h): xmlGetProp, xmlGetNsProp, xmlGetNoNsProp: "the
# attribute value or NULL if not found. It's up to the caller to free the memory with xmlFree()";
# xmlNodeGetContent: "a new #xmlChar * or NULL if no content is available. It's up to the caller
# to free the memory with xmlFree()"; xmlGetNsList: "an NULL terminated array of all the xmlNsPtr
# found that need to be freed by the caller"; xmlNodeListGetString: "a pointer to the string copy, the
# caller must free it with xmlFree()"; xmlStrdup/xmlStrndup: "a new xmlChar * or NULL". xmlFree
# is the default allocator's free (g_free of it is what GNOME code writes, and is right there).
# entities.h's xmlEncodeSpecialChars and xmlEncodeEntitiesReentrant: "A newly allocated string
# with the substitution done"; xmlNodeGetBase: "It's up to the caller to free the memory with
# xmlFree()"; uri.h's xmlBuildURI, xmlBuildRelativeURI: "a new URI string (to be freed by the
# caller)", xmlURIEscapeStr: "a copy of the string, but escaped", xmlSaveUri: "a new string (to
# be deallocated by caller)"; xmlstring.h's xmlStrncatNew: "a new xmlChar * or NULL" (glib39,
# gupnp-av's setters: `escaped = xmlEncodeSpecialChars (...); ... xmlFree (escaped)`, 5 false RC010).
# xmlreader.h's strings that are not `Const`: xmlTextReaderName "the local name or NULL if not
# available, if non NULL it need to be freed by the caller", xmlTextReaderValue "The result must be
# deallocated with xmlFree()", xmlTextReaderGetAttribute "The string must be deallocated by the
# caller" (so its No/Ns forms, LocalName, Prefix, NamespaceUri, BaseUri, XmlLang,
# LookupNamespace, ReadString, ReadInnerXml, ReadOuterXml); the xmlTextReaderConst* ones lend the
# reader's dictionary strings (glib45: gupnp-dlna's profile loader, 39 false RC010/RC002/RC003).
LIBXML2 = library("libxml2", "xmlversion.h", [
    (r"^xml(?:GetProp|GetNsProp|GetNoNsProp|NodeGetContent|NodeListGetString|NodeListGetRawString"
     r"|GetNodePath|Strdup|Strndup|CharStrdup|CharStrndup|GetNsList"
     r"|EncodeSpecialChars|EncodeEntitiesReentrant|NodeGetBase|BuildURI|BuildRelativeURI"
     r"|URIEscapeStr|SaveUri|StrncatNew)$", _OWNED),
    (r"^xmlTextReader(?:Name|LocalName|Prefix|NamespaceUri|BaseUri|XmlLang|Value|LookupNamespace"
     r"|GetAttribute|GetAttributeNo|GetAttributeNs|ReadString|ReadInnerXml|ReadOuterXml)$", _OWNED),
    # globals.h: "xmlFree: The variable holding the libxml free() implementation" (a function
    # pointer, called as `xmlFree (str)`: totem-pl-parser's SAFE_FREE).
    (r"^xmlFree$", {"arguments": {"0": "release"}}),
    # tree.c's inserts link a node into a tree, which frees it with the document or the parent:
    # xmlAddChild (parent, cur) "Add a new node to @parent, at the end of the child (or
    # property) list ... Returns the child or NULL in case of error" (a NULL parent or node);
    # xmlAddNextSibling/xmlAddPrevSibling/xmlAddSibling (cur, elem) "Returns the new node or NULL
    # in case of error"; xmlAddChildList (parent, cur) a list of nodes. Only a NULL parent or
    # node fails, which callers do not pass and never test for: taken over unconditionally (a
    # take-over on a non-NULL result only made every untested insert leak on the NULL result;
    # glib45, phodav's `xmlAddChild (response, status_node_new (ns, status))`, 3 false). A store,
    # as a container keeps an element: libxml2's own nodes (xmlNewText's) are no results refcheck
    # counts (a consume made `xmlAddChild (node, xmlNewText (t))` an RC009).
    (r"^xmlAdd(?:Child|ChildList|NextSibling|PrevSibling|Sibling)$",
     {"arguments": {"1": "store"}}),
], names_all=False)

# p11-kit's module lists (p11-kit/modules.h): p11_kit_modules_load_and_initialize,
# p11_kit_modules_load: "Returns: a NULL terminated list of modules, or NULL on failure"; the list
# is "released with p11_kit_modules_release()" (or finalized first), a plain free() of the list
# once its modules are handed on (gcr's gck-modules.c).
P11KIT = library("p11-kit", "p11-kit.h", [
    (r"^p11_kit_modules_load(?:_and_initialize)?$", _OWNED),
    (r"^p11_kit_modules_(?:finalize_and_)?release$", {"arguments": {"0": "release"}}),
], names_all=False)

# libgcrypt's multi-precision integers and S-expressions (its manual, "MPI library", "Basic
# functions": gcry_mpi_new "Allocate a new MPI object, initialize it to 0 and initially allocate
# enough memory for a number of at least nbits"; gcry_mpi_snew "likewise, but ... in secure
# memory"; gcry_mpi_copy "Create a new MPI as the exact copy of a"; gcry_mpi_release "Release
# the MPI a and free all associated resources"; gcry_sexp_release "Release the S-expression
# object sexp"). GNOME's keyring code (gnome-keyring's egg/ and gkm/, gcr) counts its keys in
# them: without the releases every `gcry_mpi_release (x)` left an MPI a project's helper made
# (egg_dh_gen_pair's outs) leaking (glib46: 8 false RC001). The S-expression constructors
# (gcry_sexp_build's out) are not listed: their results stay unknown as before.
LIBGCRYPT = library("libgcrypt", "gcrypt.h", [
    (r"^gcry_mpi_(?:s?new|copy)$", _OWNED),
    (r"^gcry_(?:mpi|sexp)_release$", {"arguments": {"0": "release"}}),
], single=True, names_all=False)

# The glib preset's: GNOME code calls these beside GLib (libgdata's libxml2, libgxps' cairo, gcr's
# p11-kit, at-spi2-core's libdbus connections, gnome-keyring's libgcrypt).
GLIB_LIBRARIES: tuple[Library, ...] = (*LIBRARIES, LIBDBUS_CONNECTIONS, CAIRO, LIBXML2, P11KIT, LIBGCRYPT)
