#!/usr/bin/env bash
# Every pointer resolves (issue 39): a moved file or a renamed section breaks the lint, not the
# reader. Checked in docs/*.md and README.md (all of their text) and in the comments of *.h, *.cc,
# *.sh, shell scripts without a suffix (by their #! line), CMakeLists.txt and *.cmake files:
#   1. a repository path (starting api/ workers/ topics/ schemas/ infra/ tests/ docs/ data/ cmake/
#      .ci/) exists; `pool.*`, `pool.{h,cc}`, `*_test.cc` and `<name>` placeholders are globs and
#      must match something;
#   2. a markdown link to a local file resolves, and its #anchor is a heading of that file;
#   3. a reference `docs/<file>.md "Section title"` (also with a comma, or in parentheses, or
#      `<file>.md "Title"` inside docs/) names a heading of that file.
# Migrations (schemas/migrations/) are not read: a landed migration is checksummed and never edited.
# `pointers.sh --self-test` proves that each kind of broken pointer is refused, in a scratch tree.
set -euo pipefail
ROOT=${1:?usage: pointers.sh <project root> | --self-test}

check_pointers() {  # check_pointers <tree>: prints each broken pointer, fails if there is one
  perl -CSD -Mstrict -Mwarnings -MFile::Glob=:bsd_glob -e '
my $root = shift;
chdir $root or die "pointers: cannot enter $root\n";

# The files to read: the tree without builds, dependencies and version control.
my @files;
sub walk {
  my ($dir) = @_;
  opendir(my $dh, $dir) or return;
  for my $name (sort readdir $dh) {
    next if $name eq "." || $name eq ".." || $name eq ".git" || $name eq "node_modules";
    my $path = $dir eq "." ? $name : "$dir/$name";
    next if $dir eq "." && ($name =~ /^build/ || $name eq ".payrail");
    next if $path eq "schemas/migrations";
    if (-d $path && !-l $path) { walk($path) } elsif (-f $path) { push @files, $path }
  }
}
walk(".");

sub slurp { my ($f) = @_; open(my $fh, "<", $f) or return ""; local $/; my $t = <$fh>; return defined $t ? $t : "" }

sub kind_of {
  my ($f) = @_;
  return "md" if $f =~ m{^docs/[^/]+\.md$} || $f eq "README.md";
  return "cpp" if $f =~ /\.(h|cc)$/;
  return "cmake" if $f =~ m{(^|/)CMakeLists\.txt$} || $f =~ /\.cmake$/;
  return "shell" if $f =~ /\.sh$/;
  if ($f !~ m{/[^/]*\.[^/]*$} && $f !~ /^[^\/]*\.[^\/]*$/) {
    open(my $fh, "<:raw", $f) or return "";
    my $first = <$fh> // "";
    return "shell" if $first =~ /^#!.*\b(ba|da|z)?sh\b/;
  }
  return "";
}

# Comments as [line, text] pieces. C++: a scanner that knows strings, raw strings and characters.
sub cpp_comments {
  my ($text) = @_;
  my @out; my $line = 1; my $i = 0; my $n = length $text;
  while ($i < $n) {
    my $c = substr($text, $i, 1);
    if ($c eq "\n") { $line++; $i++; next }
    if (substr($text, $i, 2) eq "//") {
      my $end = index($text, "\n", $i); $end = $n if $end < 0;
      push @out, [$line, substr($text, $i + 2, $end - $i - 2)];
      $i = $end; next;
    }
    if (substr($text, $i, 2) eq "/*") {
      my $end = index($text, "*/", $i + 2); $end = $n if $end < 0;
      my $body = substr($text, $i + 2, $end - $i - 2);
      my $l = $line;
      for my $piece (split /\n/, $body, -1) { push @out, [$l++, $piece] }
      $line = $l - 1; $i = $end + 2; next;
    }
    if ($c eq "R" && substr($text, $i + 1, 1) eq "\"" && $i > 0 && substr($text, $i - 1, 1) !~ /\w/
        && substr($text, $i) =~ /^R"([^(\s]{0,16})\(/) {
      my $close = ")" . $1 . "\"";
      my $end = index($text, $close, $i); $end = $n if $end < 0;
      $line += () = substr($text, $i, $end - $i) =~ /\n/g;
      $i = $end + length $close; next;
    }
    if ($c eq "\"" || ($c eq "\x27" && !($i > 0 && substr($text, $i - 1, 1) =~ /[0-9A-Fa-f]/))) {
      my $j = $i + 1;
      while ($j < $n) {
        my $d = substr($text, $j, 1);
        if ($d eq "\\") { $j += 2; next }
        last if $d eq $c || $d eq "\n";
        $j++;
      }
      $i = $j + 1; next;
    }
    $i++;
  }
  return @out;
}

# Shell and CMake: "#" at the start of a line or after a blank, outside quotes (which may span
# lines; CMake has no single quotes) and outside here-documents.
sub hash_comments {
  my ($text, $shell) = @_;
  my @out; my $line = 0; my ($single, $double) = (0, 0); my $heredoc;
  for my $l (split /\n/, $text, -1) {
    $line++;
    next if $line == 1 && $l =~ /^#!/;
    if (defined $heredoc) { undef $heredoc if $l =~ /^\t*\Q$heredoc\E\s*$/; next }
    for (my $k = 0; $k < length $l; $k++) {
      my $c = substr($l, $k, 1);
      if ($c eq "\\" && !$single) { $k++; next }
      if ($c eq "\x27" && $shell && !$double) { $single = !$single; next }
      if ($c eq "\"" && !$single) { $double = !$double; next }
      next if $single || $double;
      if ($shell && substr($l, $k) =~ /^<<-?\s*["\x27]?(\w+)["\x27]?/) { $heredoc = $1; $k += length($&) - 1; next }
      if ($c eq "#" && ($k == 0 || substr($l, $k - 1, 1) =~ /\s/)) {
        push @out, [$line, substr($l, $k + 1)];
        last;
      }
    }
  }
  return @out;
}

# Headings of a markdown file, outside code fences: their texts and their anchors (GitHub: lower
# case, punctuation dropped, blanks to hyphens, a repeated anchor numbered).
my %heading_cache;
sub headings {
  my ($f) = @_;
  return $heading_cache{$f} if $heading_cache{$f};
  my (%titles, %anchors, %seen); my $fence = 0;
  for my $l (split /\n/, slurp($f)) {
    if ($l =~ /^\s*(```|~~~)/) { $fence = !$fence; next }
    next if $fence || $l !~ /^#{1,6}\s+(.*?)\s*#*\s*$/;
    my $title = $1;
    $titles{normal_title($title)} = 1;
    my $anchor = lc $title;
    $anchor =~ s/[^\w\- ]//g;
    $anchor =~ s/ /-/g;
    my $unique = $seen{$anchor}++ ? "$anchor-" . ($seen{$anchor} - 1) : $anchor;
    $anchors{$unique} = 1;
  }
  return $heading_cache{$f} = { titles => \%titles, anchors => \%anchors };
}
sub normal_title { my ($t) = @_; $t =~ s/[`*_]//g; $t =~ s/\s+/ /g; $t =~ s/^ | $//g; return lc $t }

sub path_exists {
  my ($p) = @_;
  (my $pattern = $p) =~ s/<[\w\- ]+>/*/g;
  return -e $pattern if $pattern !~ /[*?{\[]/;
  my @found = bsd_glob($pattern, GLOB_BRACE | GLOB_NOSORT);
  return scalar grep { -e $_ } @found;
}

sub normalize_dir { my ($p) = @_; my @parts; for (split m{/}, $p) { next if $_ eq "." || $_ eq ""; if ($_ eq "..") { pop @parts } else { push @parts, $_ } } return join "/", @parts }

my @broken; my %checked = (paths => 0, links => 0, sections => 0);
sub broken { push @broken, "$_[0]:$_[1]: $_[2]" }

my $path_start = qr{(?<![\w./\-\$\@:~])((?:api|workers|topics|schemas|infra|tests|docs|data|cmake|\.ci)/(?:[\w.*+\-]|/|<[\w\-]+>|\{[\w.,*]*\})*)};

for my $f (@files) {
  my $kind = kind_of($f);
  next unless $kind;
  my $text = slurp($f);
  my @pieces;
  if ($kind eq "md") { my $l = 0; @pieces = map { [++$l, $_] } split /\n/, $text, -1 }
  elsif ($kind eq "cpp") { @pieces = cpp_comments($text) }
  else { @pieces = hash_comments($text, $kind eq "shell") }

  # 1. Paths, piece by piece.
  for my $piece (@pieces) {
    my ($line, $t) = @$piece;
    while ($t =~ /$path_start/g) {
      my $p = $1;
      $p =~ s/\.\.\.$//;
      1 while $p =~ s/(?<!\.\*)[.,:;\-]$//;
      next if $p =~ m{^[\w.]+/$} && $p !~ m{^(api|workers|topics|schemas|infra|tests|docs|data|cmake|\.ci)/$};
      $checked{paths}++;
      broken($f, $line, "no such path: $p") unless path_exists($p);
    }
  }

  # Blocks of consecutive pieces, joined with a blank (a reference may wrap), with their lines.
  my @blocks; my $last = -1;
  for my $piece (@pieces) {
    my ($line, $t) = @$piece;
    $t =~ s/^\s+|\s+$//g;
    if (!@blocks || $line != $last + 1) { push @blocks, { text => "", starts => [] } }
    my $b = $blocks[-1];
    $b->{text} .= " " if length $b->{text};
    push @{$b->{starts}}, [length $b->{text}, $line];
    $b->{text} .= $t;
    $last = $line;
  }
  my $dir = $f =~ m{^(.*)/} ? $1 : ".";
  for my $b (@blocks) {
    my $line_at = sub { my ($pos) = @_; my $l = $b->{starts}[0][1]; for (@{$b->{starts}}) { last if $_->[0] > $pos; $l = $_->[1] } return $l };
    my $t = $b->{text};

    # 2. Markdown links to local files, and their anchors.
    if ($kind eq "md") {
      while ($t =~ /!?\[[^\]]*\]\(([^()\s]+)(?:\s+"[^"]*")?\)/g) {
        my ($target, $pos) = ($1, $-[0]);
        next if $target =~ /^[a-z][a-z0-9+.\-]*:/i;
        $checked{links}++;
        my ($file, $anchor) = split /#/, $target, 2;
        my $resolved = length $file ? normalize_dir("$dir/$file") : $f;
        if (!-e $resolved) { broken($f, $line_at->($pos), "broken link: $target"); next }
        next unless defined $anchor && length $anchor;
        if ($resolved !~ /\.md$/ || !headings($resolved)->{anchors}{lc $anchor}) {
          broken($f, $line_at->($pos), "no such anchor: $target");
        }
      }
    }

    # 3. References to a section: docs/x.md "Title", docs/x.md, "Title", docs/x.md ("Title").
    while ($t =~ m{(?<![\w/.\-])((?:docs/)?[\w\-]+\.md)(?:\]\([^)\s]*\))?\)?,?\s*\(?"([^"]+)"}g) {
      my ($file, $title, $pos) = ($1, $2, $-[0]);
      $checked{sections}++;
      my $resolved = $file =~ m{^docs/} ? $file : $kind eq "md" ? normalize_dir("$dir/$file") : "docs/$file";
      if (!-e $resolved) { broken($f, $line_at->($pos), "no such file: $file"); next }
      broken($f, $line_at->($pos), "no heading \"$title\" in $resolved")
        unless headings($resolved)->{titles}{normal_title($title)};
    }
  }
}

print "$_\n" for @broken;
print STDERR "pointers: $checked{paths} paths, $checked{links} links, $checked{sections} section references read\n";
exit(@broken ? 1 : 0);
' "$1"
}

if [ "$ROOT" = --self-test ]; then
  scratch=$(mktemp -d)
  trap 'rm -rf "$scratch"' EXIT
  mkdir -p "$scratch/docs" "$scratch/infra/store/sql" "$scratch/tests/unit" "$scratch/build/x"
  printf '%s\n' '# Guide' '## The one rule' '## Plans, made `once`' '```' '## Not a heading' '```' \
    >"$scratch/docs/guide.md"
  touch "$scratch/infra/store/sql/rows.h" "$scratch/infra/store/sql/rows.cc" "$scratch/tests/unit/a_test.cc"
  good_doc='See [the rule](guide.md#the-one-rule), [plans](guide.md#plans-made-once), guide.md
"The one rule", `infra/store/sql/rows.{h,cc}`, `infra/store/sql/rows.*`, `infra/store/<concept>/`,
`tests/unit/*_test.cc`, infra/store/sql/. and https://example.com/infra/gone.h.'
  good_code='// The rows (docs/guide.md, "Plans,
// made once"; infra/store/sql/rows.h).
const char* kUrl = "https://x/infra/gone.h // infra/gone.h";  // see infra/store/
const char* kSql = R"sql(" // infra/gone.h)sql";'
  good_shell='#!/usr/bin/env bash
# infra/store/sql/rows.h (docs/guide.md "The one rule")
echo "a # infra/gone.h" ${#x} '"'"'a # infra/gone.h'"'"'
cat <<EOF
# infra/gone.h in a here-document is not a comment
EOF
# tests/unit/a_test.cc'
  write_good() {
    echo "$good_doc" >"$scratch/docs/index.md"
    echo "$good_code" >"$scratch/infra/store/sql/rows.cc"
    echo "$good_shell" >"$scratch/tests/unit/run"
    echo '# infra/gone.h in a build tree is not read' >"$scratch/build/x/CMakeLists.txt"
  }
  write_good
  if ! out=$(check_pointers "$scratch" 2>&1); then
    echo "self-test: a tree whose pointers all resolve was refused:" >&2
    echo "$out" >&2
    exit 1
  fi
  refuse() {  # refuse <file> <content> <what>: the lint must fail on that tree
    write_good
    printf '%s\n' "$2" >"$scratch/$1"
    if check_pointers "$scratch" >/dev/null 2>&1; then
      echo "self-test: $3 was not refused" >&2
      exit 1
    fi
    rm "$scratch/$1"
  }
  refuse docs/index.md 'The rows: `infra/store/rows.h`.' 'a moved file named in docs'
  refuse docs/index.md 'See infra/store/gone/.' 'a missing folder named in docs'
  refuse docs/index.md 'See `infra/store/sql/gone.{h,cc}`.' 'a glob that matches nothing'
  refuse docs/index.md 'See [the guide](gone.md).' 'a link to a missing file'
  refuse docs/index.md 'See [the rule](guide.md#the-two-rules).' 'a link to a missing anchor'
  refuse docs/index.md 'See [x](#nowhere).' 'a link to a missing anchor of the same file'
  refuse docs/index.md 'See guide.md, "Not a heading".' 'a section that is only text in a code block'
  refuse infra/store/sql/rows.cc '// See infra/store/rows.h.' 'a moved file in a C++ comment'
  refuse infra/store/sql/rows.cc '/* See tests/unit/gone_test.cc. */' 'a missing file in a block comment'
  refuse infra/store/sql/rows.cc '// (docs/guide.md, "The
// two rules")' 'a missing section in a wrapped C++ comment'
  refuse tests/unit/run '#!/bin/sh
x=1  # infra/gone.sh' 'a missing file in a shell comment'
  refuse tests/unit/run '#!/bin/sh
cat <<EOF
text
EOF
# infra/gone.sh' 'a missing file in a shell comment after a here-document'
  refuse CMakeLists.txt '# Dependency rule (docs/guide.md "Dependency rule")' 'a missing section in CMake'
  echo "self-test: every broken pointer refused"
  exit 0
fi

check_pointers "$ROOT" || {
  echo "pointers: the paths, links and sections above do not resolve" >&2
  exit 1
}
