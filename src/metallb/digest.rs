//! The election digest `sha256(node + "#" + ip)` (speaker spec §4.3), computed for many nodes at once.
//!
//! Hashing every candidate for every Service dominates `check` on large clusters, so names that fit
//! one SHA-256 block are hashed sixteen at a time with AVX-512 where the CPU has it, from blocks
//! laid out once per node name. The scalar path is the reference; a test compares both on random
//! inputs.

use std::cell::Cell;

use sha2::{Digest, Sha256};

pub type Digest32 = [u8; 32];

const IV: [u32; 8] = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19];

/// `sha256(node + "#" + ip)` for one node.
pub fn election_digest(node: &str, ip: &str) -> Digest32 {
    match padded_block(node, ip) {
        Some(block) => {
            let mut state = IV;
            sha2::compress256(&mut state, &[block.into()]);
            state_to_bytes(&state)
        }
        None => {
            let mut h = Sha256::new();
            h.update(node.as_bytes());
            h.update(b"#");
            h.update(ip.as_bytes());
            h.finalize().into()
        }
    }
}

/// A digest as its eight big-endian words, as the compression leaves it: ordering these words
/// as numbers is ordering the digest's bytes (Go's `bytes.Compare`), with no byte swap and no
/// `memcmp` for each of the ten million candidates of a large cluster.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct DigestWords(pub [u32; 8]);

impl DigestWords {
    pub fn to_bytes(self) -> Digest32 {
        state_to_bytes(&self.0)
    }
}

/// A node name laid out once as the start of a SHA-256 block (big-endian words, zero past the
/// name), so that each election only adds its address: the name is the same for every Service.
#[derive(Debug, Clone)]
pub struct NameBlock {
    words: [u32; 16],
    len: usize,
}

impl NameBlock {
    pub fn new(name: &str) -> NameBlock {
        let mut bytes = [0u8; 64];
        let len = name.len();
        if len <= 55 {
            bytes[..len].copy_from_slice(name.as_bytes());
        }
        NameBlock { words: be_words(&bytes), len }
    }
}

/// What follows a name of each length in the block of one address: `#`, the address, the padding
/// and the bit length, at the offset that length puts them (zero where the name goes).
struct Tails<'a> {
    ip: &'a str,
    by_len: [Option<[u32; 16]>; 56],
}

impl<'a> Tails<'a> {
    fn new(ip: &'a str) -> Tails<'a> {
        Tails { ip, by_len: [None; 56] }
    }

    /// The whole block for `name`, or `None` when the message needs a second block.
    fn block(&mut self, name: &NameBlock) -> Option<[u32; 16]> {
        let len = name.len + 1 + self.ip.len();
        if len > 55 {
            return None;
        }
        let ip = self.ip;
        let tail = self.by_len[name.len].get_or_insert_with(|| {
            let mut bytes = [0u8; 64];
            bytes[name.len] = b'#';
            bytes[name.len + 1..len].copy_from_slice(ip.as_bytes());
            bytes[len] = 0x80;
            bytes[56..].copy_from_slice(&((len as u64) * 8).to_be_bytes());
            be_words(&bytes)
        });
        let mut block = name.words;
        for (w, t) in block.iter_mut().zip(tail.iter()) {
            *w |= t;
        }
        Some(block)
    }
}

fn be_words(bytes: &[u8; 64]) -> [u32; 16] {
    let mut words = [0u32; 16];
    for (w, chunk) in words.iter_mut().zip(bytes.chunks_exact(4)) {
        *w = u32::from_be_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
    }
    words
}

fn words_digest(name: &str, ip: &str) -> DigestWords {
    let d = election_digest(name, ip);
    let mut words = [0u32; 8];
    for (w, chunk) in words.iter_mut().zip(d.chunks_exact(4)) {
        *w = u32::from_be_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
    }
    DigestWords(words)
}

/// The digests of `sha256(name + "#" + ip)` for every name, in order.
pub fn election_digests<'a>(
    names: impl ExactSizeIterator<Item = (&'a str, &'a NameBlock)>,
    ip: &str,
) -> Vec<DigestWords> {
    let mut out = vec![DigestWords::default(); names.len()];
    let items = names.enumerate().map(|(i, (name, block))| (i, name, block));
    each_election_digest(items, ip, &Cell::new(u32::MAX), |i, d| out[i] = *d);
    out
}

/// `f(key, sha256(name + "#" + ip))` for every `(key, name, its block)`, in batches of sixteen
/// on AVX-512 (not necessarily in order): nothing is allocated that grows with the count.
/// Digests whose first word is above `bound` (read as each digest is handed over) are left out:
/// a caller keeping the lowest few lowers it, and the hundreds of candidates that lose on their
/// first four bytes cost no call.
pub fn each_election_digest<'a, K: Copy + Default>(
    items: impl Iterator<Item = (K, &'a str, &'a NameBlock)>,
    ip: &str,
    bound: &Cell<u32>,
    f: impl FnMut(K, &DigestWords),
) {
    let mut tails = Tails::new(ip);
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx512f") {
        return x86::each_digest(items, &mut tails, bound, f);
    }
    each_digest_scalar(items, &mut tails, bound, f)
}

fn each_digest_scalar<'a, K>(
    items: impl Iterator<Item = (K, &'a str, &'a NameBlock)>,
    tails: &mut Tails,
    bound: &Cell<u32>,
    mut f: impl FnMut(K, &DigestWords),
) {
    for (key, name, block) in items {
        let digest = match tails.block(block) {
            Some(words) => {
                let mut state = IV;
                sha2::compress256(&mut state, &[words_to_block(&words).into()]);
                DigestWords(state)
            }
            None => words_digest(name, tails.ip),
        };
        if digest.0[0] <= bound.get() {
            f(key, &digest);
        }
    }
}

fn words_to_block(words: &[u32; 16]) -> [u8; 64] {
    let mut block = [0u8; 64];
    for (chunk, w) in block.chunks_exact_mut(4).zip(words) {
        chunk.copy_from_slice(&w.to_be_bytes());
    }
    block
}

/// The message as one padded SHA-256 block, when it fits (at most 55 bytes).
fn padded_block(node: &str, ip: &str) -> Option<[u8; 64]> {
    let len = node.len() + 1 + ip.len();
    if len > 55 {
        return None;
    }
    let mut block = [0u8; 64];
    block[..node.len()].copy_from_slice(node.as_bytes());
    block[node.len()] = b'#';
    block[node.len() + 1..len].copy_from_slice(ip.as_bytes());
    block[len] = 0x80;
    block[56..].copy_from_slice(&((len as u64) * 8).to_be_bytes());
    Some(block)
}

fn state_to_bytes(state: &[u32; 8]) -> Digest32 {
    let mut out = [0u8; 32];
    for (chunk, word) in out.chunks_exact_mut(4).zip(state) {
        chunk.copy_from_slice(&word.to_be_bytes());
    }
    out
}

// The one use of `unsafe` outside the raw socket: AVX-512 intrinsics behind a CPU check.
#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
mod x86 {
    use std::arch::x86_64::*;

    use super::{words_digest, Cell, DigestWords, NameBlock, Tails, IV};

    const K: [u32; 64] = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98,
        0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
        0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8,
        0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
        0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819,
        0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
        0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
        0xc67178f2,
    ];

    /// Falls back to the scalar digests on a CPU without AVX-512F, so it is safe to call anywhere.
    pub(super) fn each_digest<'a, K: Copy + Default>(
        items: impl Iterator<Item = (K, &'a str, &'a NameBlock)>,
        tails: &mut Tails,
        bound: &Cell<u32>,
        mut f: impl FnMut(K, &DigestWords),
    ) {
        if !std::arch::is_x86_feature_detected!("avx512f") {
            return super::each_digest_scalar(items, tails, bound, f);
        }
        let ip = tails.ip;
        // A digest computed alone (a name too long for one block), handed over as a lane is.
        let single = |key: K, name: &str, f: &mut dyn FnMut(K, &DigestWords)| {
            let digest = words_digest(name, ip);
            if digest.0[0] <= bound.get() {
                f(key, &digest);
            }
        };
        // blocks[lane] = the block in `lane`, as big-endian words; `keys[lane]` = its key.
        let mut blocks = [[0u32; 16]; 16];
        let mut keys = [K::default(); 16];
        let mut state = [[0u32; 16]; 8];
        let mut used = 0;
        let mut flush = |blocks: &[[u32; 16]; 16], keys: &[K], f: &mut dyn FnMut(K, &DigestWords)| {
            // Lanes past `keys.len()` hold stale blocks: out of the mask, never handed over.
            let mask = if keys.len() == 16 { u16::MAX } else { (1 << keys.len()) - 1 };
            // SAFETY: needs AVX-512F, which `each_digest` checked before anything else.
            let within = unsafe { compress16(blocks, mask, bound.get(), &mut state) };
            for lane in Lanes(within) {
                // Read per lane: the call before may have lowered it.
                if state[0][lane] <= bound.get() {
                    f(keys[lane], &DigestWords(std::array::from_fn(|i| state[i][lane])));
                }
            }
        };
        for (key, name, block) in items {
            let Some(block) = tails.block(block) else {
                single(key, name, &mut f);
                continue;
            };
            blocks[used] = block;
            keys[used] = key;
            used += 1;
            if used == 16 {
                flush(&blocks, &keys, &mut f);
                used = 0;
            }
        }
        if used > 0 {
            flush(&blocks, &keys[..used], &mut f);
        }
    }

    /// The set bits of a lane mask, lowest first.
    struct Lanes(u16);

    impl Iterator for Lanes {
        type Item = usize;
        fn next(&mut self) -> Option<usize> {
            if self.0 == 0 {
                return None;
            }
            let lane = self.0.trailing_zeros() as usize;
            self.0 &= self.0 - 1;
            Some(lane)
        }
    }

    /// The lane indices of each round of [`transpose`], squares 8, 4, 2 and 1 wide. From a pair of
    /// rows (i, i + width), i with the `width` bit clear: the first index keeps row i's columns
    /// with that bit clear and takes row i + width's in the others, the second the reverse.
    /// Index 16 and up picks from the second row.
    const SWAPS: [([i32; 16], [i32; 16]); 4] = [swap(8), swap(4), swap(2), swap(1)];

    const fn swap(width: usize) -> ([i32; 16], [i32; 16]) {
        let (mut low, mut high) = ([0i32; 16], [0i32; 16]);
        let mut j = 0;
        while j < 16 {
            if j & width == 0 {
                low[j] = j as i32;
                high[j] = (j + width) as i32;
            } else {
                low[j] = (16 + j - width) as i32;
                high[j] = (16 + j) as i32;
            }
            j += 1;
        }
        (low, high)
    }

    /// `rows` transposed: a block per register in, a word of every block per register out. Four
    /// rounds of swapping the off-diagonal halves of ever smaller squares (8, 4, 2, 1 wide).
    #[target_feature(enable = "avx512f")]
    #[inline]
    unsafe fn transpose(rows: &mut [__m512i; 16]) {
        for (width, (low, high)) in [8usize, 4, 2, 1].into_iter().zip(SWAPS) {
            let low = _mm512_loadu_si512(low.as_ptr() as *const _);
            let high = _mm512_loadu_si512(high.as_ptr() as *const _);
            for i in (0..16).filter(|i| i & width == 0) {
                let (a, b) = (rows[i], rows[i + width]);
                rows[i] = _mm512_permutex2var_epi32(a, low, b);
                rows[i + width] = _mm512_permutex2var_epi32(a, high, b);
            }
        }
    }

    /// One SHA-256 compression of sixteen single-block messages, `blocks[lane]` in each 32-bit
    /// lane: writes the digests' words to `state[i][lane]` and returns the lanes of `mask` whose
    /// first word is at most `bound`, or 0 (leaving `state` as it was).
    #[target_feature(enable = "avx512f")]
    #[allow(unused_assignments)] // the last rounds extend the schedule no round reads
    unsafe fn compress16(blocks: &[[u32; 16]; 16], mask: u16, bound: u32, state: &mut [[u32; 16]; 8]) -> u16 {
        let mut w: [__m512i; 16] = [_mm512_setzero_si512(); 16];
        for (reg, block) in w.iter_mut().zip(blocks) {
            *reg = _mm512_loadu_si512(block.as_ptr() as *const _);
        }
        transpose(&mut w);
        let splat = |v: u32| _mm512_set1_epi32(v as i32);
        let (mut a, mut b, mut c, mut d) = (splat(IV[0]), splat(IV[1]), splat(IV[2]), splat(IV[3]));
        let (mut e, mut f, mut g, mut h) = (splat(IV[4]), splat(IV[5]), splat(IV[6]), splat(IV[7]));
        // Fully unrolled so that the sixteen schedule words stay in registers.
        macro_rules! round {
            ($t:expr) => {
                let wt = if $t < 16 {
                    w[$t & 15]
                } else {
                    let x = w[($t + 1) & 15];
                    let s0 = _mm512_ternarylogic_epi32::<0x96>(
                        _mm512_ror_epi32::<7>(x),
                        _mm512_ror_epi32::<18>(x),
                        _mm512_srli_epi32::<3>(x),
                    );
                    let y = w[($t + 14) & 15];
                    let s1 = _mm512_ternarylogic_epi32::<0x96>(
                        _mm512_ror_epi32::<17>(y),
                        _mm512_ror_epi32::<19>(y),
                        _mm512_srli_epi32::<10>(y),
                    );
                    let v = _mm512_add_epi32(_mm512_add_epi32(w[$t & 15], s0), _mm512_add_epi32(w[($t + 9) & 15], s1));
                    w[$t & 15] = v;
                    v
                };
                // h + K + W does not depend on this round's e: keep it off the critical path.
                let hkw = _mm512_add_epi32(_mm512_add_epi32(h, splat(K[$t])), wt);
                let big_s1 = _mm512_ternarylogic_epi32::<0x96>(
                    _mm512_ror_epi32::<6>(e),
                    _mm512_ror_epi32::<11>(e),
                    _mm512_ror_epi32::<25>(e),
                );
                let ch = _mm512_ternarylogic_epi32::<0xCA>(e, f, g);
                let t1 = _mm512_add_epi32(_mm512_add_epi32(hkw, ch), big_s1);
                let big_s0 = _mm512_ternarylogic_epi32::<0x96>(
                    _mm512_ror_epi32::<2>(a),
                    _mm512_ror_epi32::<13>(a),
                    _mm512_ror_epi32::<22>(a),
                );
                let maj = _mm512_ternarylogic_epi32::<0xE8>(a, b, c);
                h = g;
                g = f;
                f = e;
                e = _mm512_add_epi32(d, t1);
                d = c;
                c = b;
                b = a;
                a = _mm512_add_epi32(t1, _mm512_add_epi32(big_s0, maj));
            };
        }
        round!(0);
        round!(1);
        round!(2);
        round!(3);
        round!(4);
        round!(5);
        round!(6);
        round!(7);
        round!(8);
        round!(9);
        round!(10);
        round!(11);
        round!(12);
        round!(13);
        round!(14);
        round!(15);
        round!(16);
        round!(17);
        round!(18);
        round!(19);
        round!(20);
        round!(21);
        round!(22);
        round!(23);
        round!(24);
        round!(25);
        round!(26);
        round!(27);
        round!(28);
        round!(29);
        round!(30);
        round!(31);
        round!(32);
        round!(33);
        round!(34);
        round!(35);
        round!(36);
        round!(37);
        round!(38);
        round!(39);
        round!(40);
        round!(41);
        round!(42);
        round!(43);
        round!(44);
        round!(45);
        round!(46);
        round!(47);
        round!(48);
        round!(49);
        round!(50);
        round!(51);
        round!(52);
        round!(53);
        round!(54);
        round!(55);
        round!(56);
        round!(57);
        round!(58);
        round!(59);
        round!(60);
        round!(61);
        round!(62);
        round!(63);
        let within = _mm512_mask_cmple_epu32_mask(mask, _mm512_add_epi32(a, splat(IV[0])), splat(bound));
        if within != 0 {
            for (row, (reg, iv)) in state.iter_mut().zip([a, b, c, d, e, f, g, h].into_iter().zip(IV)) {
                _mm512_storeu_si512(row.as_mut_ptr() as *mut _, _mm512_add_epi32(reg, splat(iv)));
            }
        }
        within
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn reference(node: &str, ip: &str) -> Digest32 {
        Sha256::digest(format!("{node}#{ip}")).into()
    }

    /// `election_digests` of `names`, each laid out as a node table lays it out.
    fn batched_digests(names: &[String], ip: &str) -> Vec<Digest32> {
        let blocks: Vec<NameBlock> = names.iter().map(|n| NameBlock::new(n)).collect();
        election_digests(names.iter().map(String::as_str).zip(&blocks), ip)
            .into_iter()
            .map(DigestWords::to_bytes)
            .collect()
    }

    #[test]
    fn spec_reference_digests() {
        let hex = |d: Digest32| d.iter().map(|b| format!("{b:02x}")).collect::<String>();
        assert!(hex(election_digest("iris1", "10.20.30.1")).starts_with("e42ad61a4159fa2d"));
        assert!(hex(election_digest("iris2", "10.20.30.1")).starts_with("af6cb4e7605814d2"));
        assert!(hex(election_digest("iris1", "10.20.30.2")).starts_with("610c5b6d22f60ca5"));
        assert!(hex(election_digest("iris2", "10.20.30.2")).starts_with("6429fb4c07eeae89"));
        assert!(hex(election_digest("node-a", "fd00::1")).starts_with("f636056279a4112b"));
        assert!(hex(election_digest("node-b", "fd00::1")).starts_with("b319cdafa92203a7"));
    }

    proptest! {
        #[test]
        fn batched_equals_reference(names in prop::collection::vec("[a-z0-9.-]{1,70}", 0..40), ip in "(10|198)\\.[0-9]{1,3}\\.[0-9]{1,3}\\.[0-9]{1,3}|2001:db8::[0-9a-f]{1,4}") {
            let blocks: Vec<NameBlock> = names.iter().map(|n| NameBlock::new(n)).collect();
            let want: Vec<Digest32> = names.iter().map(|n| reference(n, &ip)).collect();
            prop_assert_eq!(&batched_digests(&names, &ip), &want);
            // The path a CPU without AVX-512 takes, whatever this one has.
            let mut scalar = vec![[0u8; 32]; names.len()];
            let items = names.iter().map(String::as_str).zip(&blocks).enumerate().map(|(i, (n, b))| (i, n, b));
            each_digest_scalar(items, &mut Tails::new(&ip), &Cell::new(u32::MAX), |i, d| scalar[i] = d.to_bytes());
            prop_assert_eq!(&scalar, &want);
            // Within a bound (here the median first word): exactly the digests at or under it,
            // on either path.
            let first = |d: &Digest32| u32::from_be_bytes([d[0], d[1], d[2], d[3]]);
            let mut firsts: Vec<u32> = want.iter().map(first).collect();
            firsts.sort_unstable();
            let bound = firsts.get(firsts.len() / 2).copied().unwrap_or(0);
            let under: Vec<usize> = (0..names.len()).filter(|&i| first(&want[i]) <= bound).collect();
            let items = || names.iter().map(String::as_str).zip(&blocks).enumerate().map(|(i, (n, b))| (i, n, b));
            let mut batched = Vec::new();
            each_election_digest(items(), &ip, &Cell::new(bound), |i, d| {
                assert_eq!(d.to_bytes(), want[i]);
                batched.push(i);
            });
            batched.sort_unstable();
            prop_assert_eq!(&batched, &under);
            let mut scalar = Vec::new();
            each_digest_scalar(items(), &mut Tails::new(&ip), &Cell::new(bound), |i, _| scalar.push(i));
            prop_assert_eq!(&scalar, &under);
        }

        #[test]
        fn names_of_one_length_equal_reference(
            // One length for every name, as clusters name their nodes alike, and now and then
            // one of another: batches of sixteen equal-length names, and batches that mix.
            (names, odd) in (1usize..50).prop_flat_map(|len| (
                prop::collection::vec(proptest::string::string_regex(&format!("[a-z0-9.-]{{{len}}}")).unwrap(), 0..60),
                prop::option::of((0usize..60, "[a-z0-9]{1,60}")),
            )),
            ip in "(10|198)\\.[0-9]{1,3}\\.[0-9]{1,3}\\.[0-9]{1,3}|2001:db8::[0-9a-f]{1,4}",
        ) {
            let mut names = names;
            if let Some((at, name)) = odd {
                names.insert(at.min(names.len()), name);
            }
            let want: Vec<Digest32> = names.iter().map(|n| reference(n, &ip)).collect();
            prop_assert_eq!(&batched_digests(&names, &ip), &want);
        }

        #[test]
        fn word_order_is_byte_order(a in prop::array::uniform32(0u8..4), b in prop::array::uniform32(0u8..4)) {
            // Few byte values: equal leading words, where a later one decides, are common.
            let words = |d: &Digest32| DigestWords(std::array::from_fn(|i| u32::from_be_bytes(d[4 * i..4 * i + 4].try_into().unwrap())));
            prop_assert_eq!(words(&a).cmp(&words(&b)), a.cmp(&b));
            prop_assert_eq!(words(&a).to_bytes(), a);
        }
    }
}
