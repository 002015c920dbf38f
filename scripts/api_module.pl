#!/usr/bin/perl
# trunk post_build hook: builds the JavaScript API (crates/wasm-api) alone into dist/api/, a
# module with fixed names that a documentation site can vendor or publish: rvalue.js and
# rvalue_bg.wasm (wasm-bindgen --target web) and a package.json. The page's own module is
# trunk's, named by content hash and carrying the UI; this one holds the API and the core only.
# Release builds use the page's profile (index.html's data-cargo-profile-release). No wasm-opt,
# as for the page: Debian's wasm-opt 108 breaks this module the same way (init dies in
# Table.set, see index.html).
use strict;
use warnings;
use JSON::PP;

my $stage = $ENV{TRUNK_STAGING_DIR} or die "api_module.pl: TRUNK_STAGING_DIR is not set (run by trunk)\n";
my $profile = ($ENV{TRUNK_PROFILE} // '') eq 'release' ? 'wasm-release' : 'dev';
my $crate = 'rvalue-wasm-api';
my $out = "$stage/api";
my $json = JSON::PP->new->utf8;

# `--crate-type cdylib` here rather than in the crate's manifest: the page links the crate as an
# rlib, and a cdylib there would be linked (fat LTO) on every page build for nothing.
# Offline, as trunk builds the page (Trunk.toml): the page's build has fetched every crate.
my @cargo = (
    qw(cargo rustc --offline --lib --crate-type cdylib --target wasm32-unknown-unknown),
    '-p', $crate, '--profile', $profile, '--message-format', 'json-render-diagnostics',
);
open(my $build, '-|', @cargo) or die "api_module.pl: cannot run cargo: $!\n";
my $wasm;
while (my $line = <$build>) {
    my $msg = eval { $json->decode($line) } or next;
    next unless ($msg->{reason} // '') eq 'compiler-artifact' && $msg->{target}{name} eq 'rvalue_wasm_api';
    ($wasm) = grep { /\.wasm$/ } @{ $msg->{filenames} };
}
close($build) or die "api_module.pl: cargo rustc -p $crate failed\n";
die "api_module.pl: cargo built no .wasm for $crate\n" unless $wasm;

system(qw(wasm-bindgen --target web --no-typescript --out-name rvalue --out-dir), $out, $wasm) == 0
    or die "api_module.pl: wasm-bindgen failed on $wasm\n";

# Node has `fetch` but cannot fetch a file: URL, so there `init` reads the wasm itself: by
# default the file beside rvalue.js, or a path or file: URL given as `module_or_path`. Bytes, a
# compiled module and http(s) URLs go to wasm-bindgen's loader as they are, as does every call in
# a browser (where `node:fs` is never imported).
my $js_path = "$out/rvalue.js";
open(my $js_in, '<:raw', $js_path) or die "api_module.pl: $js_path: $!\n";
my $js = do { local $/; <$js_in> };
close($js_in);
my $export = "export { initSync, __wbg_init as default };\n";
my $at = index($js, $export);
die "api_module.pl: wasm-bindgen's default export not found in $js_path\n" if $at < 0;
substr($js, $at, length $export) = <<'JS';
function inNode() {
    return typeof process === 'object' && typeof process.versions?.node === 'string';
}

async function init(arg) {
    if (!inNode()) return __wbg_init(arg);
    const plain = arg !== undefined && Object.getPrototypeOf(arg) === Object.prototype;
    const where = (plain ? arg.module_or_path : arg) ?? new URL('rvalue_bg.wasm', import.meta.url);
    const local = typeof where === 'string'
        ? !/^(https?|data|blob):/i.test(where)
        : where instanceof URL && where.protocol === 'file:';
    if (!local) return __wbg_init(arg);
    const { readFile } = await import('node:fs/promises');
    return __wbg_init({ module_or_path: await readFile(where) });
}

export { initSync, init as default };
JS
open(my $js_out, '>:raw', $js_path) or die "api_module.pl: $js_path: $!\n";
print $js_out $js;
close($js_out) or die "api_module.pl: $js_path: $!\n";

# The package's version, licence and description are the crate's (the workspace's version).
open(my $meta_fh, '-|', qw(cargo metadata --offline --no-deps --format-version 1))
    or die "api_module.pl: cannot run cargo metadata: $!\n";
my $meta = $json->decode(do { local $/; <$meta_fh> });
close($meta_fh) or die "api_module.pl: cargo metadata failed\n";
my ($pkg) = grep { $_->{name} eq $crate } @{ $meta->{packages} }
    or die "api_module.pl: no package $crate in cargo metadata\n";

my @fields = (
    name => 'rvalue-explorer-api',
    version => $pkg->{version},
    description => $pkg->{description},
    license => $pkg->{license},
    type => 'module',
    main => 'rvalue.js',
    module => 'rvalue.js',
    files => ['rvalue.js', 'rvalue_bg.wasm'],
);
my @lines;
while (my ($key, $value) = splice(@fields, 0, 2)) {
    push @lines, '  ' . $json->encode($key) . ': ' . $json->encode($value);
}
open(my $fh, '>:raw', "$out/package.json") or die "api_module.pl: $out/package.json: $!\n";
print $fh "{\n", join(",\n", @lines), "\n}\n";
close($fh) or die "api_module.pl: $out/package.json: $!\n";
