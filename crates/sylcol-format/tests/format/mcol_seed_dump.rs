//! An object laid out exactly as the seed's worked MCOL (924 triangles, 502
//! vertices, a 5x5x5 grid, 110 occupied cells), with the seed's byte dumps
//! placed at the seed's offsets, assembled here by hand — not by sylcol's
//! encoder — and decoded.

use sylcol_format::mcol::{self, CellLink};
use sylcol_format::pof0;

fn put_words(buf: &mut [u8], at: usize, words: &[u32]) {
    for (k, w) in words.iter().enumerate() {
        buf[at + 4 * k..at + 4 * k + 4].copy_from_slice(&w.to_be_bytes());
    }
}

fn put_u16s(buf: &mut [u8], at: usize, v: &[u16]) {
    for (k, x) in v.iter().enumerate() {
        buf[at + 2 * k..at + 2 * k + 2].copy_from_slice(&x.to_be_bytes());
    }
}

const NV: usize = 502;
const NT: usize = 924;
const OCCUPIED: usize = 110;

/// List lengths: the seed's first four (0x2B, 0x1C, 2, 2), then 3 each.
fn list_len(i: usize) -> usize {
    [0x2B, 0x1C, 2, 2].get(i).copied().unwrap_or(3)
}

fn seed_object() -> Vec<u8> {
    let lists_end = 0x84E0 + 2 * (0..OCCUPIED).map(list_len).sum::<usize>();
    let data_end = lists_end.next_multiple_of(16);
    let mut d = vec![0u8; data_end];
    // Header: magic, data size, bbox +-25 000, extent, cell 10 000.
    d[..4].copy_from_slice(b"MCOL");
    put_words(&mut d, 4, &[(data_end - 0x10) as u32]);
    let f = |x: f32| x.to_bits();
    put_words(
        &mut d,
        0x10,
        &[f(-25000.0), f(-25000.0), f(-25000.0), f(1.0)],
    );
    put_words(&mut d, 0x20, &[f(25000.0), f(25000.0), f(25000.0), f(1.0)]);
    put_words(&mut d, 0x30, &[f(50000.0), f(50000.0), f(50000.0), f(0.0)]);
    put_words(&mut d, 0x40, &[f(10000.0), f(10000.0), f(10000.0), 0]);
    put_words(
        &mut d,
        0x50,
        &[((NV as u32) << 16) | NT as u32, 0x3A30, 0x51C0, 0x70],
    );
    put_words(&mut d, 0x70, &[0x0505_0501, 0x6770]);
    // The four targets' first words, as the seed dumps them.
    put_words(
        &mut d,
        0x80,
        &[0xc685620b, 0x4596789d, 0x4694b3b5, 0x44a9a634],
    );
    put_words(
        &mut d,
        0x3A40,
        &[0xc6826964, 0x456b1aa4, 0x469ab065, 0xc685cfe8],
    );
    put_words(
        &mut d,
        0x51D0,
        &[0x00000001, 0x00020003, 0x00040005, 0x00050004],
    );
    // The rest of the triangles: valid indices.
    for t in 3..NT {
        let i = ((t * 7) % (NV - 2)) as u16;
        put_u16s(&mut d, 0x51D0 + 6 * t, &[i, i + 1, i + 2]);
    }
    put_u16s(&mut d, 0x51D0 + 6 * 2 + 4, &[6]);
    let mut slots: Vec<u64> = vec![0x54, 0x58, 0x5C, 0x74];
    let mut list_at = 0x84E0;
    for i in 0..OCCUPIED {
        let (a, b) = (0x6780 + 32 * i, 0x7720 + 32 * i);
        let (x, y, z) = (i % 5, (i / 5) % 5, i / 25);
        let index = u32::from_be_bytes([x as u8, y as u8, z as u8, 1]);
        put_words(&mut d, a, &[index, 1, (b - 0x10) as u32, 0]);
        put_words(&mut d, b, &[list_len(i) as u32, (list_at - 0x10) as u32]);
        let list: Vec<u16> = (0..list_len(i))
            .map(|k| ((i * 31 + k * 17) % NT) as u16)
            .collect();
        put_u16s(&mut d, list_at, &list);
        list_at += 2 * list_len(i);
        slots.extend([a as u64 + 8, b as u64 + 4]);
    }
    // Cell spheres from the seed's dumps of A[0] and A[2].
    put_words(&mut d, 0x6780 + 28, &[0x47295092]);
    put_words(
        &mut d,
        0x67C0 + 16,
        &[0x46023555, 0xC6023555, 0xC6023555, 0x471FA1A7],
    );
    slots.sort_unstable();
    let rel: Vec<u64> = slots.iter().map(|s| s - 0x10).collect();
    d.extend(pof0::frame(&pof0::encode_entries(&rel).unwrap()));
    d
}

#[test]
fn the_seeds_dumps_decode_as_the_seed_reads_them() {
    let bytes = seed_object();
    let m = mcol::decode(&bytes).unwrap();
    let l = m.layout.as_ref().unwrap();
    assert_eq!((m.vertices.len(), m.triangles.len()), (NV, NT));
    assert_eq!(
        (l.spheres, l.vertices, l.triangles, l.cells),
        (0x80, 0x3A40, 0x51D0, 0x6780)
    );
    assert_eq!(m.header.dims(), [5, 5, 5]);
    assert_eq!(m.occupied_cells(), OCCUPIED);
    // 0x5C -> 0x80: floats; 0x58 -> small u16 triples.
    assert_eq!(m.spheres[0][0], f32::from_bits(0xc685620b));
    assert_eq!(m.vertices[0][0], f32::from_bits(0xc6826964));
    assert_eq!(&m.triangles[..2], &[[0, 1, 2], [3, 4, 5]]);
    // A @0x6780: (0,0,0,1), count 1, -> B @0x7720, sphere radius 0x47295092.
    assert_eq!(m.cells[0].index, [0, 0, 0, 1]);
    assert_eq!(m.cells[0].count, 1);
    assert_eq!(m.cells[0].link, CellLink::Record(0));
    assert_eq!(m.cells[0].sphere[3], f32::from_bits(0x47295092));
    // A @0x67A0: (1,0,0,1) -> B @0x7740; A @0x67C0 (2,0,0,1) with its sphere.
    assert_eq!(m.cells[1].index, [1, 0, 0, 1]);
    assert_eq!(l.records[m.cells[1].record().unwrap()], 0x7740);
    assert_eq!(
        m.cells[2].sphere.map(f32::to_bits),
        [0x46023555, 0xC6023555, 0xC6023555, 0x471FA1A7]
    );
    // A @0x6820 is cell (0,1,0) = linear index 5 -> B @0x77C0.
    assert_eq!(m.cells[5].index, [0, 1, 0, 1]);
    assert_eq!(l.records[m.cells[5].record().unwrap()], 0x77C0);
    // B @0x7720..: counts 0x2B, 0x1C, 2, 2; lists at 0x84E0, 0x8536, 0x856E, 0x8572
    // (stored 0x84D0, 0x8526, 0x855E, 0x8562).
    let counts: Vec<usize> = m.records[..4].iter().map(|r| r.triangles.len()).collect();
    assert_eq!(counts, [0x2B, 0x1C, 2, 2]);
    assert_eq!(&l.lists[..4], &[0x84E0, 0x8536, 0x856E, 0x8572]);
    // Consecutive list pointers differ by exactly 2 x count, everywhere.
    for i in 1..m.records.len() {
        assert_eq!(
            l.lists[i] - l.lists[i - 1],
            2 * m.records[i - 1].triangles.len() as u32
        );
    }
    // Empty cells after the 110th carry no relocation.
    assert!(
        m.cells[OCCUPIED..]
            .iter()
            .all(|c| c.link == CellLink::Raw(0))
    );
    assert_eq!(mcol::encode(&m).unwrap(), bytes);
}
