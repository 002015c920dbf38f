#!/usr/bin/perl
# trunk post_build hook: index.html's Content-Security-Policy allows trunk's inline loader
# <script type="module"> by its SHA-256, which changes with every build (the loader names the
# hashed .js and .wasm files). Replaces the placeholder 'sha256-TRUNK-LOADER' in the staged
# index.html with the hash of each inline script found there, and fails the build if there is no
# placeholder or no inline script, so the page can never ship with a policy that blocks it.
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
