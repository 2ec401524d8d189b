// Consistent hashing: rings (Jedis, ketama, jump, modulo), Jedis hashes,
// jump hash and family keys. A Ring is built completely by its constructor
// and is immutable afterwards, so it is safe to share between threads and
// its (possibly long) build runs without the GIL.
#include <climits>

#include "common.hpp"

namespace crpy {

namespace {

struct ShardSpec {
  bool named = false;
  std::string name;
  uint32_t weight = 1;
};

ShardSpec ParseShard(py::handle entry, size_t i) {
  ShardSpec spec;
  py::handle name = entry;
  if (PyTuple_Check(entry.ptr()) || PyList_Check(entry.ptr())) {
    py::sequence pair = py::reinterpret_borrow<py::sequence>(entry);
    if (py::len(pair) != 2) {
      throw py::type_error("shards[" + std::to_string(i) +
                           "] must be a name, None, or a (name, weight) pair");
    }
    name = pair[0];
    spec.weight = static_cast<uint32_t>(BoundedInt(pair[1], "weight", 0, UINT32_MAX));
  }
  if (name.is_none()) return spec;
  KeyArg k;  // str (UTF-8) or bytes-like; the C API refuses empty names
  if (PyUnicode_Check(name.ptr()) || PyBytes_Check(name.ptr())) {
    if (!k.Set(name.ptr(), "name")) throw py::error_already_set();
  } else {
    throw py::type_error("shards[" + std::to_string(i) + "] name must be str, bytes or None, not " +
                         std::string(Py_TYPE(name.ptr())->tp_name));
  }
  spec.named = true;
  spec.name.assign(k.data(), k.size());
  if (spec.name.find('\0') != std::string::npos) {
    ThrowInvalid("shards[" + std::to_string(i) + "] name contains a NUL byte");
  }
  return spec;
}

std::unique_ptr<Ring> MakeRing(py::handle shards, py::handle algo, py::handle hash,
                               py::handle naming, bool key_tags) {
  cr_ring_options o;
  cr_ring_options_init(&o, sizeof o);
  // Raw values: the C library refuses the ones it does not know.
  o.algo = static_cast<cr_ring_algo>(BoundedInt(algo, "algo", INT32_MIN, INT32_MAX));
  o.hash = static_cast<cr_hash_algo>(BoundedInt(hash, "hash", INT32_MIN, INT32_MAX));
  o.naming = static_cast<cr_ring_naming>(BoundedInt(naming, "naming", INT32_MIN, INT32_MAX));
  o.key_tags = key_tags ? 1 : 0;
  if (PyUnicode_Check(shards.ptr()) || PyBytes_Check(shards.ptr())) {
    throw py::type_error("shards must be an iterable of shards, not a single name");
  }
  std::vector<ShardSpec> specs;
  size_t i = 0;
  for (py::handle entry : py::iter(shards)) specs.push_back(ParseShard(entry, i++));
  auto ring = std::make_unique<Ring>();
  cr_status st;
  {
    py::gil_scoped_release nogil;
    st = cr_ring_new(&ring->ring, &o);
    for (size_t s = 0; st == CR_OK && s < specs.size(); ++s) {
      const ShardSpec &spec = specs[s];
      st = cr_ring_add_shard(ring->ring, spec.named ? spec.name.c_str() : nullptr, spec.weight);
    }
    if (st == CR_OK) st = cr_ring_build(ring->ring);
  }
  Check(st);
  return ring;
}

py::list LocateMany(const Ring &self, py::handle keys) {
  KeyBatch batch;
  if (!batch.SetAll(keys.ptr(), "keys")) throw py::error_already_set();
  const size_t n = batch.size();
  std::vector<uint32_t> shards(n);
  cr_status st;
  if (n >= kNoGilBatch) {
    py::gil_scoped_release nogil;
    st = cr_ring_locate_batch(shards.data(), self.ring, batch.ptrs(), batch.lens(), n);
  } else {
    st = cr_ring_locate_batch(shards.data(), self.ring, batch.ptrs(), batch.lens(), n);
  }
  Check(st);
  py::list out(n);
  for (size_t i = 0; i < n; ++i) out[i] = py::int_(shards[i]);
  return out;
}

}  // namespace

void InitRing(py::module_ &m) {
  NativeClass<Ring>(m, "Ring", "A built, immutable consistent-hashing ring (use cloudroute.Ring).")
      .def(py::init(&MakeRing), py::arg("shards"), py::arg("algo"), py::arg("hash"),
           py::arg("naming"), py::arg("key_tags"))
      .def(
          "locate",
          [](const Ring &self, py::handle key) {
            KeyArg k;
            if (!k.Set(key.ptr(), "key")) throw py::error_already_set();
            uint32_t shard = 0;
            Check(cr_ring_locate(&shard, self.ring, k.data(), k.size()));
            return shard;
          },
          py::arg("key"), "The 0-based index of the shard owning key (bytes or str as UTF-8).")
      .def("locate_many", &LocateMany, py::arg("keys"),
           "The shard of each key, in one call: a list of ints.")
      .def("__len__", [](const Ring &self) { return cr_ring_get_shard_count(self.ring); });

  m.def(
      "jedis_hash",
      [](py::handle key, py::handle algo) {
        KeyArg k;
        if (!k.Set(key.ptr(), "key")) throw py::error_already_set();
        int64_t out = 0;
        Check(cr_jedis_hash(
            &out, static_cast<cr_hash_algo>(BoundedInt(algo, "algo", INT32_MIN, INT32_MAX)),
            k.data(), k.size()));
        return out;
      },
      py::arg("key"), py::arg("algo"),
      "Jedis's Hashing.<algo>.hash(key) (use cloudroute.jedis_hash).");
  m.def(
      "jump_hash",
      [](py::handle key, py::handle buckets) {
        uint32_t out = 0;
        Check(cr_jump_hash(&out, U64OrLong(key, "key", true), U32(buckets, "buckets")));
        return out;
      },
      py::arg("key"), py::arg("buckets"),
      "Jump consistent hash (Lamping & Veach; Guava's Hashing.consistentHash): the\n"
      "bucket (0 .. buckets-1) of a 64-bit key. key is 0 .. 2**64-1, or a negative\n"
      "Java long (its two's-complement bits). buckets is 1 .. 2**31-1.");
  m.def(
      "family_key",
      [](py::handle family, py::handle key, py::handle variant) {
        KeyArg f, k;
        if (!f.Set(family.ptr(), "family") || !k.Set(key.ptr(), "key"))
          throw py::error_already_set();
        char buf[CR_FAMILY_KEY_SIZE];
        size_t needed = 0;
        const std::string fam(f.data(), f.size());
        if (fam.find('\0') != std::string::npos) ThrowInvalid("family contains a NUL byte");
        const std::string name = CString(variant, "variant");
        cr_family_key_variant v = CR_FAMILY_KEY_VARIANT_JEDIS;
        Check(cr_family_key_variant_from_name(&v, name.c_str()));
        Check(cr_family_key_as(buf, sizeof buf, &needed, v, fam.c_str(), k.data(), k.size()));
        return std::string(buf);
      },
      py::arg("family"), py::arg("key"), py::kw_only(), py::arg("variant") = "jedis",
      "The key to store for (family, key) in the family-key design: the decimal text\n"
      "of the signed 64-bit MurmurHash of family + ':' + key. variant names the Java\n"
      "hash that wrote existing keys: 'jedis' (Jedis MurmurHash, the default) or\n"
      "'commons-codec' (MurmurHash2.hash64(String)); both hash UTF-8. It hides the\n"
      "original key from Redis (SCAN, KEYS and MONITOR show only numbers). family\n"
      "must be non-empty without ':' or NUL.");
  m.attr("FAMILY_KEY_SIZE") = CR_FAMILY_KEY_SIZE;
}

}  // namespace crpy
