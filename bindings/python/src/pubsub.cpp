// Publish / subscribe of the live client: cloudroute._native.Subscription
// over cr_client_subscribe / cr_subscription_*, the cloudroute.Message
// record over cr_message_get_*, and Client.publish / spublish. Conversion
// only: placement, resubscription and the message queue are the C
// library's.
//
// Threading: a Subscription is shared between threads. Its handle lives in
// a shared_ptr that each waiting next() holds (as client.cpp's calls hold
// the client's), and it holds the client's handle: cr_subscription_free
// always runs before cr_client_free. next() waits without the GIL; on the
// main thread in slices of kSignalSliceMs, running Python's signal
// handlers in between (cr_subscription_next has no interrupt check), so
// Ctrl-C ends it. close() marks the handle closed and wakes every waiter
// (cr_subscription_wake until none waits); each then returns None, and the
// last reference frees the subscription without the GIL (its thread may be
// waiting for it to log an event).
#include <atomic>
#include <chrono>
#include <cstring>
#include <memory>
#include <string>
#include <thread>

#include "client.hpp"

namespace crpy {

namespace {

constexpr uint32_t kSignalSliceMs = 50;

PyTypeObject *g_message = nullptr;
// Members of cloudroute.MessageType and ChannelKind by C value: tuples owned for the
// life of the process (never released: no destructor runs after the interpreter).
PyObject *g_message_types = nullptr;
PyObject *g_channel_kinds = nullptr;

struct SubscriptionHandle {
  cr_subscription *s = nullptr;
  std::shared_ptr<ClientHandle> client;  // released after s is freed
  const uint64_t generation = ForkGeneration();
  std::atomic<bool> closed{false};
  std::atomic<int> waiting{0};  // next() calls inside cr_subscription_next

  SubscriptionHandle() = default;
  SubscriptionHandle(const SubscriptionHandle &) = delete;
  SubscriptionHandle &operator=(const SubscriptionHandle &) = delete;
  bool forked() const { return generation != ForkGeneration(); }
  ~SubscriptionHandle() {
    if (forked()) return;  // the parent's: leaked on purpose (common.hpp, "fork")
    WithoutGil([this] {
      cr_subscription_free(s);  // joins its thread, which may log an event
      client.reset();
    });
  }
};

struct Subscription {
  std::shared_ptr<SubscriptionHandle> h;  // read and reset with the GIL held only

  std::shared_ptr<SubscriptionHandle> Acquire() const {
    if (!h) ThrowInvalid("the subscription is closed");
    if (h->forked()) ThrowForked("the subscription");
    return h;
  }
};

py::object EnumMember(PyObject *table, long value) {
  const py::tuple t = py::reinterpret_borrow<py::tuple>(table);
  if (value >= 0 && static_cast<size_t>(value) < t.size()) return t[static_cast<size_t>(value)];
  return py::int_(value);  // a value newer than this binding
}

py::object Text(const char *s) {
  if (s == nullptr) s = "";
  PyObject *o =
      PyUnicode_DecodeUTF8(s, static_cast<Py_ssize_t>(std::strlen(s)), "backslashreplace");
  if (o == nullptr) throw py::error_already_set();
  return py::reinterpret_steal<py::object>(o);
}

py::object BytesOrNone(const char *p, size_t len) {
  if (p == nullptr) return py::none();
  return py::bytes(p, len);
}

// m (freed here) as a cloudroute.Message.
py::object MakeMessage(cr_message *raw) {
  std::unique_ptr<cr_message, void (*)(cr_message *)> m(raw, cr_message_free);
  size_t channel_len = 0, pattern_len = 0, payload_len = 0;
  const char *channel = cr_message_get_channel(m.get(), &channel_len);
  const char *pattern = cr_message_get_pattern(m.get(), &pattern_len);
  const char *payload = cr_message_get_payload(m.get(), &payload_len);
  py::object items[] = {EnumMember(g_message_types, cr_message_get_type(m.get())),
                        EnumMember(g_channel_kinds, cr_message_get_kind(m.get())),
                        py::bytes(channel != nullptr ? channel : "", channel_len),
                        BytesOrNone(pattern, pattern_len),
                        BytesOrNone(payload, payload_len),
                        Text(cr_message_get_node(m.get())),
                        Text(cr_message_get_reason(m.get()))};
  PyObject *o = PyStructSequence_New(g_message);
  if (o == nullptr) throw py::error_already_set();
  Py_ssize_t i = 0;
  for (py::object &item : items) PyStructSequence_SetItem(o, i++, item.release().ptr());
  return py::reinterpret_steal<py::object>(o);
}

cr_channel_kind KindOf(py::handle kind) {
  return static_cast<cr_channel_kind>(BoundedInt(kind, "kind", 0, CR_CHANNEL_KIND_SHARD));
}

using NamesFn = cr_status (*)(cr_subscription *, cr_channel_kind, size_t, const void *const *,
                              const size_t *);

// cr_subscription_add / _remove of names (returns at once: the GIL is kept).
void Names(const Subscription &self, NamesFn fn, py::handle kind, py::handle names) {
  const cr_channel_kind k = KindOf(kind);
  Args n;
  n.Set(names, "names");
  const std::shared_ptr<SubscriptionHandle> h = self.Acquire();
  Check(fn(h->s, k, n.size(), n.ptrs(), n.lens()));
}

// The next message or event; None when timeout_ms (None: no bound) passed
// or the subscription was closed.
py::object Next(const Subscription &self, py::handle timeout_ms) {
  if (!self.h) return py::none();  // closed, maybe by another thread just now
  std::shared_ptr<SubscriptionHandle> h = self.Acquire();
  const bool bounded = !timeout_ms.is_none();
  const uint32_t total = bounded ? U32(timeout_ms, "timeout_ms") : UINT32_MAX;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(total);
  const bool slices = OnMainThread();
  for (;;) {
    uint32_t wait = total == UINT32_MAX ? UINT32_MAX : total;
    if (bounded) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                            deadline - std::chrono::steady_clock::now())
                            .count();
      wait = left > 0 ? static_cast<uint32_t>(left) : 0;
    }
    if (slices && wait > kSignalSliceMs) wait = kSignalSliceMs;
    cr_message *m = nullptr;
    cr_status st;
    h->waiting.fetch_add(1);  // with the GIL: close() sees it, or we saw closed
    {
      py::gil_scoped_release nogil;
      st = cr_subscription_next(&m, h->s, wait);
      h->waiting.fetch_sub(1);
    }
    Check(st);
    if (m != nullptr) return MakeMessage(m);
    if (h->closed.load()) return py::none();
    if (slices && PyErr_CheckSignals() != 0) throw py::error_already_set();
    if (bounded && std::chrono::steady_clock::now() >= deadline) return py::none();
  }
}

void Close(Subscription &self) {
  std::shared_ptr<SubscriptionHandle> h = std::move(self.h);
  self.h.reset();
  if (!h || h->forked()) return;  // a forked child's: nothing of it is here
  h->closed.store(true);
  py::gil_scoped_release nogil;
  // Every waiter leaves its cr_subscription_next (a wake reaches one at a
  // time) and returns None; the last reference frees.
  while (h->waiting.load() > 0) {
    cr_subscription_wake(h->s);
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  h.reset();
}

std::unique_ptr<Subscription> Subscribe(const Client &self) {
  auto h = std::make_shared<SubscriptionHandle>();
  h->client = self.Acquire();
  Check(cr_client_subscribe(&h->s, h->client->c));  // starts a thread: no network
  auto sub = std::make_unique<Subscription>();
  sub->h = std::move(h);
  return sub;
}

using PublishFn = cr_status (*)(int64_t *, cr_client *, const void *, size_t, const void *, size_t);

int64_t Publish(const Client &self, PublishFn fn, py::handle channel, py::handle message) {
  KeyArg ch;
  if (!ch.Set(channel.ptr(), "channel")) throw py::error_already_set();
  Args msg;  // one value: bytes, str, int, float or bytes-like
  msg.Set(py::make_tuple(message), "message");
  int64_t receivers = 0;
  Check(NoGil(self, [&](cr_client *c) {
    return fn(&receivers, c, ch.data(), ch.size(), msg.ptrs()[0], msg.lens()[0]);
  }));
  return receivers;
}

PyStructSequence_Field kMessageFields[] = {
    {"type",
     "MessageType: MESSAGE, or an event (SUBSCRIBED, RESUBSCRIBED, MOVING, "
     "UNSUBSCRIBED)"},
    {"kind", "ChannelKind of the subscribed name (PATTERN for a message a pattern matched)"},
    {"channel", "a message's channel; an event's name (bytes)"},
    {"pattern", "the pattern that matched a message (bytes); None otherwise"},
    {"payload", "a message's payload (bytes); None for events"},
    {"node", "'host:port' the message came from, or the event is about; '' when none"},
    {"reason", "why a MOVING event's name lost its subscription; '' otherwise"},
    {nullptr, nullptr}};
PyStructSequence_Desc kMessageDesc = {
    "cloudroute.Message",
    "Message(type, kind, channel, pattern, payload, node, reason): a message or event of a "
    "Subscription.",
    kMessageFields, 7};

py::tuple Members(py::handle cls) {
  py::list out;
  for (py::handle m : cls) out.append(m);
  return py::tuple(out);
}

}  // namespace

void InitPubSub(py::module_ &m) {
  g_message = PyStructSequence_NewType(&kMessageDesc);
  if (g_message == nullptr) throw py::error_already_set();
  m.add_object("Message", py::handle(reinterpret_cast<PyObject *>(g_message)));
  py::module_ types = py::module_::import("cloudroute._types");
  // Their members are in the C values' order (tests/python/test_tables.py).
  g_message_types = Members(types.attr("MessageType")).release().ptr();
  g_channel_kinds = Members(types.attr("ChannelKind")).release().ptr();

  NativeClass<Subscription>(m, "Subscription",
                            "Messages of channels, patterns and shard channels (from\n"
                            "Client.subscription; use cloudroute.Subscription).")
      .def(
          "add",
          [](const Subscription &self, py::handle kind, py::handle names) {
            Names(self, &cr_subscription_add, kind, names);
          },
          py::arg("kind"), py::arg("names"),
          "Subscribes names of one ChannelKind value (0 channel, 1 pattern, 2 shard); each\n"
          "one's SUBSCRIBED event follows.")
      .def(
          "remove",
          [](const Subscription &self, py::handle kind, py::handle names) {
            Names(self, &cr_subscription_remove, kind, names);
          },
          py::arg("kind"), py::arg("names"),
          "Unsubscribes names of one kind; each subscribed one's UNSUBSCRIBED event follows.")
      .def("next", &Next, py::arg("timeout_ms") = py::none(),
           "The next Message, waiting at most timeout_ms (None: no bound) without the GIL;\n"
           "None when none came in time or the subscription is closed.")
      .def_property_readonly("closed", [](const Subscription &self) { return !self.h; })
      .def("close", &Close,
           "Closes the subscription's connections and thread (nothing is unsubscribed on the\n"
           "servers); every next() waiting returns None. Idempotent.");

  auto client = py::reinterpret_borrow<py::class_<Client>>(m.attr("Client"));
  client
      .def("subscription", &Subscribe,
           "A new Subscription with no names: its own connections and thread (it keeps the\n"
           "client's handle alive until closed).")
      .def(
          "publish",
          [](const Client &self, py::handle channel, py::handle message) {
            return Publish(self, &cr_client_publish, channel, message);
          },
          py::arg("channel"), py::arg("message"),
          "PUBLISH channel message: how many subscribers of the node it reached got it.")
      .def(
          "spublish",
          [](const Client &self, py::handle channel, py::handle message) {
            return Publish(self, &cr_client_spublish, channel, message);
          },
          py::arg("channel"), py::arg("message"),
          "SPUBLISH shard channel message, on its slot's master: the subscribers in that\n"
          "shard that got it.");
}

}  // namespace crpy
