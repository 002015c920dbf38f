#!/usr/bin/perl
# trunk post_build hook: index.html's Content-Security-Policy allows trunk's inline loader
# <script type="module"> by its SHA-256, which changes with every build (the loader names the
# hashed .js and .wasm files). Replaces the placeholder 'sha256-TRUNK-LOADER' in the staged
# index.html with the hash of each inline script found there, and fails the build if there is no
# placeholder or no inline script, so the page can never ship with a policy that blocks it.
# Also drops the page's HTML comments.
use strict;
use warnings;
use Digest::SHA qw(sha256);
use MIME::Base64 qw(encode_base64);

my $dir = $ENV{TRUNK_STAGING_DIR} or die "csp_hash.pl: TRUNK_STAGING_DIR is not set (run by trunk)\n";
my $html = $ENV{TRUNK_HTML_FILE} // 'index.html';
$html =~ s{.*/}{};
my $path = "$dir/$html";
open(my $in, '<:raw', $path) or die "csp_hash.pl: $path: $!\n";
my $text = do { local $/; <$in> };
close($in);

# The source's comments explain the markup to its readers; the page ships without them (dist/ has
# a size budget). No comment sits inside a script, so the hashes below are unaffected.
$text =~ s{<!--.*?-->\n?}{}gs;

my @hashes;
while ($text =~ m{<script\b[^>]*>(.*?)</script>}gs) {
    next if $1 eq '';
    push @hashes, "'sha256-" . encode_base64(sha256($1), '') . "'";
}
die "csp_hash.pl: no inline script in $path\n" unless @hashes;
my $n = ($text =~ s/'sha256-TRUNK-LOADER'/join(' ', @hashes)/ge);
die "csp_hash.pl: no 'sha256-TRUNK-LOADER' placeholder in $path\n" unless $n;

open(my $out, '>:raw', $path) or die "csp_hash.pl: $path: $!\n";
print $out $text;
close($out) or die "csp_hash.pl: $path: $!\n";

# The same for the files copied from www/: their comments stay in the sources. Style sheets lose
# `/* … */`, scripts their whole-line `//` comments, pages their `<!-- … -->` (none of them is
# inside an inline script, whose hash the page's policy pins).
for my $file (glob("$dir/www/*.css $dir/www/*.js $dir/www/*.html")) {
    open(my $f, '<:raw', $file) or die "csp_hash.pl: $file: $!\n";
    my $body = do { local $/; <$f> };
    close($f);
    if ($file =~ /\.css$/) {
        $body =~ s{/\*.*?\*/\n?}{}gs;
    } elsif ($file =~ /\.js$/) {
        $body =~ s{^[ \t]*//[^\n]*\n}{}gm;
    } else {
        $body =~ s{<!--.*?-->\n?}{}gs;
    }
    open(my $g, '>:raw', $file) or die "csp_hash.pl: $file: $!\n";
    print $g $body;
    close($g) or die "csp_hash.pl: $file: $!\n";
}
