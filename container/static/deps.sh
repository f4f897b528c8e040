#!/bin/sh
# deps.sh - builds the static libraries crs-ci needs that Debian's own static
# archives cannot give (libcurl, libgit2, libxml2, libmicrohttpd, libarchive)
# from Debian's source packages, with only the features crs-ci uses, into
# /opt/static. Runs inside the crs-ci/static-deps image build (see build.sh).
#
# Usage: deps.sh PKG=VERSION...   (the versions build.sh keyed the image on)
#
# Debian's builds of these five pull in Kerberos/GSSAPI, LDAP, RTMP, nghttp2,
# psl, zstd, lz4, acl, GnuTLS/p11-kit, libunistring and ICU, none of which
# ship static archives. Here each is configured by hand: OpenSSL for TLS,
# zlib for compression, pcre2 and http-parser from Debian's static archives,
# nothing else. Debian's patches (security fixes) are applied by
# `apt-get source`; the build system is regenerated as Debian's dh does.
#
# If the candidate version's files are gone from the mirror (a security
# update superseded it), the newest older version that downloads is used and
# the choice is written to /opt/static/VERSIONS.
set -eu

PREFIX=/opt/static
SRC=/opt/static-src
JOBS=${JOBS:-2}
export CFLAGS="-O2 -fstack-protector-strong -D_FORTIFY_SOURCE=2"
export CPPFLAGS="-I$PREFIX/include"
export LDFLAGS="-L$PREFIX/lib"
export PKG_CONFIG_PATH="$PREFIX/lib/pkgconfig"

mkdir -p "$PREFIX" "$SRC"
: >"$PREFIX/VERSIONS"

# fetch PKG VERSION: unpack Debian's source package of PKG into $SRC/PKG,
# falling back to older versions in the apt lists when VERSION is gone.
fetch() {
	pkg=$1 want=$2
	tries="$want $(apt-cache showsrc --only-source "$pkg" |
		awk '/^Version:/ {print $2}' | grep -vxF "$want" |
		sort -r -V)"
	for v in $tries; do
		if dpkg --compare-versions "$v" gt "$want"; then
			continue
		fi
		rm -rf "$SRC/dl" && mkdir -p "$SRC/dl"
		if (cd "$SRC/dl" && apt-get source -qq "$pkg=$v" >/dev/null \
		    2>"$SRC/dl.err"); then
			mv "$SRC/dl/$(cd "$SRC/dl" && ls -d -- */)" "$SRC/$pkg"
			rm -rf "$SRC/dl"
			echo "$pkg $v" >>"$PREFIX/VERSIONS"
			[ "$v" = "$want" ] ||
				echo "deps.sh: warning: $pkg $want not" \
				    "downloadable; using $v" >&2
			return 0
		fi
	done
	cat "$SRC/dl.err" >&2
	echo "deps.sh: no version of $pkg could be downloaded" >&2
	exit 1
}

build_curl() {
	cd "$SRC/curl"
	# Debian's series ends with the GnuTLS and NSS flavour patches, which
	# its rules pop again for the OpenSSL build.
	patch -R -p1 -s <debian/patches/99_nss.patch
	patch -R -p1 -s <debian/patches/90_gnutls.patch
	autoreconf -fi >/dev/null 2>&1
	./configure -q --prefix="$PREFIX" --enable-static --disable-shared \
		--disable-dependency-tracking \
		--with-openssl --with-zlib \
		--with-ca-bundle=/etc/ssl/certs/ca-certificates.crt \
		--with-ca-path=/etc/ssl/certs \
		--enable-threaded-resolver \
		--without-brotli --without-zstd --without-libpsl \
		--without-nghttp2 --without-nghttp3 --without-ngtcp2 \
		--without-libidn2 --without-librtmp --without-libssh2 \
		--without-libssh --without-wolfssh --without-gssapi \
		--without-hyper --without-quiche --without-msh3 \
		--disable-ldap --disable-ldaps --disable-rtsp --disable-dict \
		--disable-telnet --disable-tftp --disable-pop3 --disable-imap \
		--disable-smtp --disable-gopher --disable-mqtt --disable-smb \
		--disable-ftp --disable-file --disable-ntlm-wb --disable-manual
	make -s -j"$JOBS" -C lib
	make -s -C lib install
	make -s -C include install
	make -s install-pkgconfigDATA install-binSCRIPTS
}

build_libgit2() {
	cd "$SRC/libgit2"
	cmake -S . -B build -DCMAKE_BUILD_TYPE=None \
		-DCMAKE_C_FLAGS="$CFLAGS" \
		-DCMAKE_INSTALL_PREFIX="$PREFIX" \
		-DCMAKE_INSTALL_LIBDIR=lib \
		-DBUILD_SHARED_LIBS=OFF -DBUILD_TESTS=OFF -DBUILD_CLI=OFF \
		-DBUILD_EXAMPLES=OFF -DBUILD_FUZZERS=OFF \
		-DUSE_HTTPS=OpenSSL -DUSE_SHA1=CollisionDetection \
		-DUSE_SSH=OFF -DUSE_GSSAPI=OFF -DUSE_NTLMCLIENT=OFF \
		-DUSE_HTTP_PARSER=system -DREGEX_BACKEND=pcre2 \
		-DUSE_BUNDLED_ZLIB=OFF \
		-DCERT_LOCATION=/etc/ssl/certs/ca-certificates.crt \
		-DENABLE_REPRODUCIBLE_BUILDS=ON >/dev/null
	cmake --build build -j"$JOBS" >/dev/null
	cmake --install build >/dev/null
}

build_libxml2() {
	cd "$SRC/libxml2"
	autoreconf -fi >/dev/null 2>&1
	# No iconv: static glibc would dlopen the host's gconv modules.
	./configure -q --prefix="$PREFIX" --enable-static --disable-shared \
		--disable-dependency-tracking \
		--without-python --without-icu --without-lzma --without-zlib \
		--without-iconv --without-http --without-ftp \
		--without-readline --without-history --without-debug
	make -s -j"$JOBS" libxml2.la
	make -s install-libLTLIBRARIES install-pkgconfigDATA \
		install-binSCRIPTS
	make -s -C include install
}

build_libmicrohttpd() {
	cd "$SRC/libmicrohttpd"
	autoreconf -fi >/dev/null 2>&1
	./configure -q --prefix="$PREFIX" --enable-static --disable-shared \
		--disable-dependency-tracking \
		--disable-https --without-gnutls --disable-doc \
		--disable-examples --disable-curl --disable-nls
	make -s -j"$JOBS" -C src/microhttpd
	make -s -C src/microhttpd install
	make -s -C src/include install
	make -s install-pkgconfigDATA
}

build_libarchive() {
	cd "$SRC/libarchive"
	autoreconf -fi >/dev/null 2>&1
	./configure -q --prefix="$PREFIX" --enable-static --disable-shared \
		--disable-dependency-tracking \
		--disable-bsdtar --disable-bsdcpio --disable-bsdcat \
		--disable-acl --disable-xattr --with-zlib \
		--without-bz2lib --without-libb2 --without-iconv \
		--without-lz4 --without-zstd --without-lzma --without-cng \
		--without-mbedtls --without-nettle --without-openssl \
		--without-xml2 --without-expat
	make -s -j"$JOBS" libarchive.la
	make -s install-libLTLIBRARIES install-includeHEADERS \
		install-pkgconfigDATA
}

for spec in "$@"; do
	pkg=${spec%%=*}
	fetch "$pkg" "${spec#*=}"
	echo "deps.sh: building $pkg" >&2
	"build_$pkg" >"$SRC/$pkg.log" 2>&1 || {
		tail -n 60 "$SRC/$pkg.log" >&2
		echo "deps.sh: $pkg failed" >&2
		exit 1
	}
done

# pkg-config that always answers for a static link; first in PATH.
mkdir -p "$PREFIX/bin"
cat >"$PREFIX/bin/pkg-config" <<'EOF'
#!/bin/sh
# Static pkg-config: adds --static and looks in /opt/static first.
PKG_CONFIG_PATH=/opt/static/lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
export PKG_CONFIG_PATH
exec /usr/bin/pkg-config --static "$@"
EOF
chmod 755 "$PREFIX/bin/pkg-config"
rm -rf "$SRC"
