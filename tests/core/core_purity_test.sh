#!/usr/bin/env bash
# core/ is pure (ARCHITECTURE.md §2): no sockets, no hiredis, no OpenSSL, no
# threads of its own. Fails, naming each offending line, when a file under
# the given directory includes an I/O or threading header or starts a thread.
#
#   core_purity_test.sh <core dir>
#
# arpa/inet.h stays allowed: the core parses address text with inet_pton; it
# opens no socket.
set -euo pipefail
dir=${1:?usage: core_purity_test.sh <core dir>}
[[ -d $dir ]] || { echo "not a directory: $dir" >&2; exit 2; }

mapfile -t files < <(find "$dir" -type f \( -name '*.h' -o -name '*.hpp' -o -name '*.c' \
  -o -name '*.cc' -o -name '*.cpp' \) | sort)
(( ${#files[@]} > 0 )) || { echo "no source files under $dir" >&2; exit 2; }

includes='^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]([^>"]*hiredis[^>"]*|openssl/[^>"]*|sys/socket\.h|sys/un\.h|sys/epoll\.h|sys/select\.h|poll\.h|netinet/[^>"]*|netdb\.h|pthread\.h|thread|future|stop_token)[>"]'
# Starting a thread through a header pulled in some other way.
calls='(std::j?thread[[:space:]]*[({[:alpha:]_]|std::async[[:space:]]*\(|pthread_create[[:space:]]*\()'

bad=$(grep -nE "$includes" "${files[@]}" /dev/null || true)
bad+=$(grep -nE "$calls" "${files[@]}" /dev/null | grep -vE '^[^:]+:[0-9]+:[[:space:]]*//' || true)
if [[ -n $bad ]]; then
  echo "core/ must stay free of sockets, hiredis, OpenSSL and threads; found:" >&2
  echo "$bad" >&2
  exit 1
fi
echo "core purity: ${#files[@]} files checked; no I/O or thread header, no thread started"
