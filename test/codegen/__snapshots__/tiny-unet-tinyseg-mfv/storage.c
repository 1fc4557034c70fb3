typedef struct {
  uint32_t id;      /* spill block id = slot */
  uint32_t bytes;   /* payload bytes */
  uint32_t addr;    /* block address on the device */
} model_slot;

static const model_slot model_slots[MODEL_STORAGE_SLOTS] = {
  { 6u, 76800u, 0u },
};

static const mcusim_storage* model_storage;

void model_set_storage(const mcusim_storage* storage) {
  model_storage = storage;
}

#define SPILL_MAGIC 0x4c505354u /* "TSPL" little-endian */
#define SPILL_HEADER_BYTES 16u

static uint32_t crc32_update(uint32_t c, const uint8_t* p, uint32_t n) {
  uint32_t i, k;
  for (i = 0; i < n; ++i) {
    c ^= p[i];
    for (k = 0; k < 8u; ++k) c = (c & 1u) ? 0xedb88320u ^ (c >> 1) : c >> 1;
  }
  return c;
}

static void put_u32(uint8_t* p, uint32_t v) {
  p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); p[2] = (uint8_t)(v >> 16); p[3] = (uint8_t)(v >> 24);
}

static uint32_t get_u32(const uint8_t* p) {
  return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

/* A spill block's payload generated from the arena tensor `src` (sim/storage-stream.ts
 * payloadStream): raw bytes, or (mfv) [rep][bitmap: bit k of byte b set when element 8b + k is
 * not rep][the other elements in order]. */
typedef struct {
  const uint8_t* src;
  uint32_t bytes; /* tensor bytes */
  uint32_t pos;   /* payload bytes produced */
  uint32_t next;  /* next tensor element to scan for other values */
  uint32_t mfv;
  uint8_t rep;
} model_encoder;

static void model_encoder_open(model_encoder* e, const uint8_t* src, uint32_t bytes, uint32_t mfv, uint8_t rep) {
  e->src = src; e->bytes = bytes; e->pos = 0; e->next = 0; e->mfv = mfv; e->rep = rep;
}

static uint8_t model_encoder_next(model_encoder* e) {
  uint32_t p = e->pos++, base, k;
  uint8_t bits = 0;
  if (!e->mfv) return e->src[p];
  if (p == 0u) return e->rep;
  if (p <= (e->bytes + 7u) / 8u) {
    base = 8u * (p - 1u);
    for (k = 0; k < 8u && base + k < e->bytes; ++k) if (e->src[base + k] != e->rep) bits |= (uint8_t)(1u << k);
    return bits;
  }
  while (e->next < e->bytes) {
    uint8_t v = e->src[e->next++];
    if (v != e->rep) return v;
  }
  return 0xffu;
}

/* Spill: count the tensor `src` in the planned histogram `hist` (256 int32; the most frequent
 * value, ties to the smallest, is rep), MFV-compress when that is smaller, then the CRC over the
 * header and the payload, then the block (erase its sectors unless erased) one device unit at a
 * time through the planned I/O buffer `io`, the payload generated from `src` each pass. */
static int model_spill(const model_slot* s, const uint8_t* src, uint8_t* io, int32_t* hist) {
  const mcusim_storage* st = model_storage;
  uint8_t head[SPILL_HEADER_BYTES], b;
  uint32_t length = s->bytes, total, ub, foot, off, i, n, sec, v, encoded, mfv = 0u, crc;
  int32_t count = -1;
  uint8_t rep = 0;
  model_encoder e;
  int rc;
  if (st == 0) return MODEL_E_NO_STORAGE;
  ub = st->geometry.program_unit_bytes;
  if (ub != MODEL_STORAGE_PROGRAM_UNIT_BYTES) return MODEL_E_BLOCK;
  for (v = 0; v < 256u; ++v) hist[v] = 0;
  for (i = 0; i < s->bytes; ++i) hist[src[i]] += 1;
  for (v = 0; v < 256u; ++v) {
    if (hist[v] > count) { rep = (uint8_t)v; count = hist[v]; }
  }
  encoded = 1u + (s->bytes + 7u) / 8u + (s->bytes - (uint32_t)count);
  if (encoded < s->bytes) { mfv = 1u; length = encoded; }
  total = SPILL_HEADER_BYTES + length;
  foot = (total + ub - 1u) / ub * ub;
  put_u32(head, SPILL_MAGIC);
  put_u32(head + 4, s->id);
  put_u32(head + 8, length);
  crc = crc32_update(0xffffffffu, head, 12u);
  model_encoder_open(&e, src, s->bytes, mfv, rep);
  for (i = 0; i < length; ++i) {
    b = model_encoder_next(&e);
    crc = crc32_update(crc, &b, 1u);
  }
  put_u32(head + 12, crc ^ 0xffffffffu);
  if (st->ops->is_erased == 0 || !st->ops->is_erased(st->device, s->addr, foot)) {
    for (sec = s->addr / st->geometry.sector_bytes; sec <= (s->addr + foot - 1u) / st->geometry.sector_bytes; ++sec) {
      rc = mcusim_storage_erase(st, sec);
      if (rc != MCUSIM_STORAGE_OK) return rc;
    }
  }
  model_encoder_open(&e, src, s->bytes, mfv, rep);
  for (off = 0; off < foot; off += MODEL_STORAGE_IO_UNIT_BYTES) {
    n = foot - off < MODEL_STORAGE_IO_UNIT_BYTES ? foot - off : MODEL_STORAGE_IO_UNIT_BYTES;
    for (i = 0; i < n; ++i) {
      uint32_t p = off + i;
      io[i] = p < SPILL_HEADER_BYTES ? head[p] : p < total ? model_encoder_next(&e) : 0xffu;
    }
    rc = mcusim_storage_program(st, s->addr + off, io, n);
    if (rc != MCUSIM_STORAGE_OK) return rc;
  }
  return 0;
}

static uint32_t popcount8(uint8_t v) {
  uint32_t n = 0;
  for (; v != 0u; v &= (uint8_t)(v - 1u)) ++n;
  return n;
}

/* Before Fetching / FetchingConv2D: read the block back through the I/O buffer and check its
 * header and CRC; its length is the tensor's (raw) or shorter (MFV: then the bitmap must mark no
 * element past the tensor and its set bits must count the other values the length implies, as
 * sim/storage/mfv-codec.ts decompressMfv). The slot is then decoded from model_storage->mapped. */
static int model_fetch(const model_slot* s, uint8_t* io) {
  const mcusim_storage* st = model_storage;
  uint32_t crc, off, n, stored, length, i, q, others = 0, past = 0;
  uint32_t bitmap_bytes = (s->bytes + 7u) / 8u;
  int rc;
  if (st == 0 || st->mapped == 0) return MODEL_E_NO_STORAGE;
  rc = mcusim_storage_read(st, s->addr, io, SPILL_HEADER_BYTES);
  if (rc != MCUSIM_STORAGE_OK) return rc;
  length = get_u32(io + 8);
  if (get_u32(io) != SPILL_MAGIC || get_u32(io + 4) != s->id || length > s->bytes || (length < s->bytes && length < 1u + bitmap_bytes)) return MODEL_E_BLOCK;
  stored = get_u32(io + 12);
  crc = crc32_update(0xffffffffu, io, 12u);
  for (off = 0; off < length; off += MODEL_STORAGE_IO_UNIT_BYTES) {
    n = length - off < MODEL_STORAGE_IO_UNIT_BYTES ? length - off : MODEL_STORAGE_IO_UNIT_BYTES;
    rc = mcusim_storage_read(st, s->addr + SPILL_HEADER_BYTES + off, io, n);
    if (rc != MCUSIM_STORAGE_OK) return rc;
    crc = crc32_update(crc, io, n);
    for (i = 0; length < s->bytes && i < n; ++i) {
      q = off + i;
      if (q >= 1u && q <= bitmap_bytes) others += popcount8(io[i]);
      if (q == bitmap_bytes && s->bytes % 8u != 0u && (io[i] >> (s->bytes % 8u)) != 0u) past = 1u;
    }
  }
  if ((crc ^ 0xffffffffu) != stored) return MODEL_E_CRC;
  if (length < s->bytes && (past || length != 1u + bitmap_bytes + others)) return MODEL_E_BLOCK;
  return 0;
}

/* The tensor bytes of a checked slot in order, read once each from the device's mapped view: raw
 * (length = tensor bytes) or MFV (bitmap and other values as two cursors). */
typedef struct {
  const uint8_t* bitmap; /* 0: raw block */
  const uint8_t* values; /* raw: the payload; MFV: the next other value */
  uint32_t i;            /* next element */
  uint8_t rep, bits;
} model_decoder;

static void model_decoder_open(model_decoder* d, const model_slot* s) {
  const uint8_t* block = model_storage->mapped + s->addr;
  const uint8_t* payload = block + SPILL_HEADER_BYTES;
  d->i = 0;
  d->bits = 0;
  if (get_u32(block + 8) == s->bytes) {
    d->bitmap = 0; d->values = payload; d->rep = 0;
  } else {
    d->rep = payload[0]; d->bitmap = payload + 1; d->values = payload + 1 + (s->bytes + 7u) / 8u;
  }
}

static uint8_t model_decoder_next(model_decoder* d) {
  uint32_t i = d->i++;
  if (d->bitmap == 0) return d->values[i];
  if ((i & 7u) == 0u) d->bits = d->bitmap[i >> 3];
  return ((d->bits >> (i & 7u)) & 1u) ? *d->values++ : d->rep;
}

/* FetchingConv2D's row window: decode the slot's rows [*filled, up_to) (flat b * in_h + y, in
 * order, each once) into the ring of w_rows rows at `window`. */
static void model_fill_rows(model_decoder* d, uint8_t* window, uint32_t row_bytes, uint32_t w_rows, uint32_t in_h, uint32_t* filled, int32_t up_to) {
  uint32_t j;
  for (; (int32_t)*filled < up_to; ++*filled) {
    uint8_t* dst = window + ((*filled % in_h) % w_rows) * row_bytes;
    for (j = 0; j < row_bytes; ++j) dst[j] = model_decoder_next(d);
  }
}

