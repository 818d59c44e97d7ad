#!/usr/bin/env bash
# Builds the krew release archive for one platform and prints its sha256.
#
#   scripts/dist.sh [--target TRIPLE] [--binary PATH] [--no-pgo] [--out-dir DIR]
#                   [--update-manifest] [--manifest PATH]
#
#   --target TRIPLE    Rust target triple, passed to cargo (default: the host); it also names
#                      the archive's os/arch (x86_64|aarch64 on linux|apple-darwin).
#   --binary PATH      package this binary instead of building one (tests; a binary built
#                      elsewhere). Without --target it is taken to be the host's.
#   --no-pgo           for the host, `cargo build --profile release-lto --locked` alone. By
#                      default the host's binary is scripts/build-pgo.sh's (the release-lto
#                      profile guided by a profile of its own runs, about 10% faster on large
#                      clusters); another target's is always a plain release-lto build, since
#                      its training runs could not run here.
#   --out-dir DIR      where the archive goes (default: dist/)
#   --update-manifest  write the sha256 into the platform of the manifest whose uri ends with
#                      the archive's name
#   --manifest PATH    the manifest to update (default: plugin.yaml)
#
# Output: DIR/kubectl-lbdoctor_v<version>_<os>_<arch>.tar.gz holding, at its root,
# kubectl-lbdoctor, kubectl_complete-lbdoctor, LICENSE and README.md; the last line printed is
# `<sha256>  <file>` (sha256sum's format). The archive is reproducible: names in a fixed order,
# owner 0, modes normalized, mtime from SOURCE_DATE_EPOCH or else the last commit, gzip -n.
# Needs GNU tar (`tar` or `gtar`; on macOS: brew install gnu-tar) and python3 for
# --update-manifest.
set -euo pipefail

die() { echo "dist.sh: $*" >&2; exit 1; }

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
target="" binary="" out_dir="$root/dist" update=false manifest="$root/plugin.yaml" pgo=true
while [ $# -gt 0 ]; do
  case "$1" in
    --target) [ $# -ge 2 ] || die "--target needs a value"; target=$2; shift 2 ;;
    --binary) [ $# -ge 2 ] || die "--binary needs a value"; binary=$2; shift 2 ;;
    --no-pgo) pgo=false; shift ;;
    --out-dir) [ $# -ge 2 ] || die "--out-dir needs a value"; out_dir=$2; shift 2 ;;
    --manifest) [ $# -ge 2 ] || die "--manifest needs a value"; manifest=$2; shift 2 ;;
    --update-manifest) update=true; shift ;;
    -h|--help) sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "${BASH_SOURCE[0]}"; exit 0 ;;
    *) die "unknown argument '$1' (see --help)" ;;
  esac
done

# The version krew sees is Cargo.toml's [package] version with a leading v; tests/it/krew.rs keeps
# plugin.yaml's spec.version equal to it.
version=$(awk '/^\[/ { pkg = ($0 == "[package]") } pkg && /^version *=/ { gsub(/^version *= *"|".*$/, ""); print; exit }' \
  "$root/Cargo.toml")
[ -n "$version" ] || die "no version in the [package] section of $root/Cargo.toml"

# krew's os/arch are Go's GOOS/GOARCH: take them from the triple, or from uname for the host.
if [ -n "$target" ]; then
  arch_part=${target%%-*}
  case "$target" in
    *-linux-*) os=linux ;;
    *-apple-darwin) os=darwin ;;
    *) die "target '$target': only linux and apple-darwin targets are packaged" ;;
  esac
else
  arch_part=$(uname -m)
  case "$(uname -s)" in
    Linux) os=linux ;;
    Darwin) os=darwin ;;
    *) die "host OS '$(uname -s)': only Linux and macOS are packaged" ;;
  esac
fi
case "$arch_part" in
  x86_64|amd64) arch=amd64 ;;
  aarch64|arm64) arch=arm64 ;;
  *) die "architecture '$arch_part': only x86_64 and aarch64 are packaged" ;;
esac

completion="$root/completions/kubectl_complete-lbdoctor"
[ -f "$completion" ] || die "$completion is missing: kubectl's plugin completion needs it in the archive"
for f in LICENSE README.md; do [ -f "$root/$f" ] || die "$root/$f is missing"; done

# BSD tar (macOS's default) has none of --sort, --owner or --mtime. (No `| grep -q`: under
# pipefail, tar killed by SIGPIPE would fail the test.)
tar=""
for t in tar gtar; do
  case "$("$t" --version 2>/dev/null || true)" in *"GNU tar"*) tar=$t; break ;; esac
done
[ -n "$tar" ] || die "GNU tar is needed for a reproducible archive (on macOS: brew install gnu-tar)"

# One timestamp for the archive's entries and, exported, for build.rs' build date.
if [ -z "${SOURCE_DATE_EPOCH:-}" ]; then
  SOURCE_DATE_EPOCH=$(git -C "$root" log -1 --format=%ct 2>/dev/null) ||
    die "not a git checkout: set SOURCE_DATE_EPOCH to fix the archive's timestamps"
fi
export SOURCE_DATE_EPOCH

host=$(rustc -vV 2>/dev/null | sed -n 's/^host: //p') || true
if [ -z "$binary" ] && $pgo && { [ -z "$target" ] || [ "$target" = "$host" ]; }; then
  binary=$("$root/scripts/build-pgo.sh" | tail -n 1)
elif [ -z "$binary" ]; then
  (cd "$root" && cargo build --profile release-lto --locked ${target:+--target "$target"})
  binary="${CARGO_TARGET_DIR:-$root/target}/${target:+$target/}release-lto/kubectl-lbdoctor"
fi
{ [ -f "$binary" ] && [ -x "$binary" ]; } || die "binary '$binary' does not exist or is not executable"

name="kubectl-lbdoctor_v${version}_${os}_${arch}.tar.gz"
mkdir -p "$out_dir"
archive="$(cd "$out_dir" && pwd)/$name"
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
# Modes set explicitly so the archive does not depend on the umask or the checkout.
install -m 0755 "$binary" "$stage/kubectl-lbdoctor"
install -m 0755 "$completion" "$stage/kubectl_complete-lbdoctor"
install -m 0644 "$root/LICENSE" "$stage/LICENSE"
install -m 0644 "$root/README.md" "$stage/README.md"

# Names listed in C-locale order (--sort=name only orders what tar finds in directories);
# gnu format because pax would add atime/ctime records.
(cd "$stage" && LC_ALL=C "$tar" --format=gnu --sort=name --owner=0 --group=0 --numeric-owner \
  --mtime="@$SOURCE_DATE_EPOCH" -cf - LICENSE README.md kubectl-lbdoctor kubectl_complete-lbdoctor) |
  gzip -n >"$archive.tmp"
mv "$archive.tmp" "$archive"

if command -v sha256sum >/dev/null; then
  sha=$(sha256sum "$archive" | cut -d' ' -f1)
else
  sha=$(shasum -a 256 "$archive" | cut -d' ' -f1)
fi

if $update; then
  [ -f "$manifest" ] || die "manifest '$manifest' does not exist"
  # Line-based so the rest of the file (comments, quoting, order) stays byte for byte: the
  # platform is the list item holding the uri that ends with the archive's name.
  python3 - "$manifest" "$name" "$sha" <<'EOF' || die "could not update $manifest"
import re, sys
path, name, sha = sys.argv[1:]
lines = open(path).read().split("\n")
indent = lambda l: len(l) - len(l.lstrip())      # column of the line's `-` or key
key_col = lambda l: len(l) - len(l.lstrip(" -"))  # column of its key, past any `- `
uris = [i for i, l in enumerate(lines) if re.match(r"\s*(- )?uri:\s*\S*/" + re.escape(name) + r"\s*$", l)]
if len(uris) != 1:
    sys.exit(f"{path}: {len(uris)} platforms have a uri ending in /{name}, want 1 (is spec.version bumped?)")
u = uris[0]
# The item starts at the nearest `- ` above (or on) the uri line that is left of the uri key.
start = next((i for i in range(u, -1, -1) if re.match(r"\s*- ", lines[i]) and indent(lines[i]) < key_col(lines[u])), 0)
item = indent(lines[start])
end = next((i for i in range(start + 1, len(lines)) if lines[i].strip() and indent(lines[i]) <= item), len(lines))
shas = [i for i in range(start, end) if re.match(r"\s*(- )?sha256:", lines[i])]
if len(shas) != 1:
    sys.exit(f"{path}: the platform of {name} has {len(shas)} sha256 lines, want 1")
s = shas[0]
lines[s] = re.sub(r"sha256:.*", f'sha256: "{sha}"', lines[s])
open(path, "w").write("\n".join(lines))
EOF
  echo "updated $manifest: $os/$arch sha256 $sha" >&2
fi

echo "$sha  $archive"
