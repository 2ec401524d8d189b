// `cloudroute pipe --seeds HOST:PORT[,…]`: commands read from stdin, one
// per line with redis-cli's quoting, run as one pipeline on a live cluster
// (cr_pipeline_*: grouped per node, all nodes at once) and their replies
// printed in order in redis-cli's format — "value", (integer) N, (nil),
// (error) …, numbered arrays. Each command is classed and placed as the
// server's command table says (CR_ACCESS_AUTO: a read when the server flags
// it readonly, else a write; routed by the keys its key specs find); a
// keyless command (PING, INFO, DBSIZE …) goes to the --node HOST:PORT given,
// and is an error in place without one.
// Exit codes: 0 every command succeeded, 1 some failed (each error printed
// in its place), 2 usage or input errors (nothing is sent).
#include <cctype>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "client_setup.hpp"

namespace cli {

namespace {

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// One line split as redis-cli splits it: whitespace-separated words;
// "double quotes" with \n \r \t \b \a \\ \" and \xHH escapes; 'single
// quotes' with \' only; a closing quote must end the word. False (with
// *why) on an unbalanced quote or a quote followed by more text.
bool SplitArgs(const std::string &line, std::vector<std::string> *out, std::string *why) {
  size_t i = 0;
  const size_t n = line.size();
  for (;;) {
    while (i < n && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
    if (i >= n) return true;
    std::string word;
    const char quote = line[i] == '"' || line[i] == '\'' ? line[i] : '\0';
    if (quote == '\0') {
      while (i < n && !std::isspace(static_cast<unsigned char>(line[i]))) word += line[i++];
      out->push_back(std::move(word));
      continue;
    }
    ++i;
    for (;;) {
      if (i >= n) {
        *why = "unbalanced quotes";
        return false;
      }
      const char c = line[i];
      if (c == quote) {
        ++i;
        break;
      }
      if (c == '\\' && i + 1 < n) {
        const char e = line[i + 1];
        if (quote == '\'') {
          word += e == '\'' ? '\'' : c;
          i += e == '\'' ? 2 : 1;
          continue;
        }
        if (e == 'x' && i + 3 < n && HexDigit(line[i + 2]) >= 0 && HexDigit(line[i + 3]) >= 0) {
          word += static_cast<char>(HexDigit(line[i + 2]) * 16 + HexDigit(line[i + 3]));
          i += 4;
          continue;
        }
        switch (e) {
          case 'n':
            word += '\n';
            break;
          case 'r':
            word += '\r';
            break;
          case 't':
            word += '\t';
            break;
          case 'b':
            word += '\b';
            break;
          case 'a':
            word += '\a';
            break;
          default:
            word += e;
            break;
        }
        i += 2;
        continue;
      }
      word += c;
      ++i;
    }
    if (i < n && !std::isspace(static_cast<unsigned char>(line[i]))) {
      *why = "closing quote must be followed by a space";
      return false;
    }
    out->push_back(std::move(word));
  }
}

struct Command {
  std::vector<std::string> argv;
  size_t line = 0;
};

// Every non-empty line of stdin, split. Returns 0 or an exit code.
int ReadCommands(std::vector<Command> *out) {
  std::string line;
  for (size_t no = 1; std::getline(std::cin, line); ++no) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    Command c;
    c.line = no;
    std::string why;
    if (!SplitArgs(line, &c.argv, &why)) {
      return Usage("stdin line " + std::to_string(no) + ": " + why);
    }
    if (!c.argv.empty()) out->push_back(std::move(c));
  }
  return 0;
}

}  // namespace

int CmdPipe(const std::vector<std::string> &args) {
  ClientSetup setup;
  std::vector<std::string> rest;
  int rc = setup.Parse(args, &rest);
  if (rc != 0) return rc;
  std::string node_host;
  uint16_t node_port = 0;
  for (size_t i = 0; i < rest.size(); ++i) {
    if (rest[i] == "--node") {
      if (i + 1 >= rest.size()) return Usage("--node needs HOST:PORT");
      if ((rc = ParseHostPort("--node", rest[++i], &node_host, &node_port)) != 0) return rc;
    } else {
      return Usage("pipe: unknown argument '" + rest[i] + "' (commands come from stdin)");
    }
  }
  std::vector<Command> cmds;
  if ((rc = ReadCommands(&cmds)) != 0) return rc;
  if ((rc = setup.Connect()) != 0) return rc;

  cr_pipeline *p = nullptr;
  cr_status s = cr_pipeline_new(&p, setup.client);
  if (s != CR_OK) return Die("pipeline", s);
  // Commands that cannot be queued (a keyless one without --node, a node
  // the cluster does not have) print their error in place.
  std::vector<std::string> refused(cmds.size());
  std::vector<size_t> queued;  // positions of the queued commands
  std::vector<ByteArgs> argv;  // borrowed by the pipeline until it runs
  argv.reserve(cmds.size());
  for (size_t i = 0; i < cmds.size(); ++i) {
    const std::vector<std::string> &a = cmds[i].argv;
    const ByteArgs &v = argv.emplace_back(a);
    // The server's command table classes it and finds its keys; CR_EINVAL
    // here means it names none (PING, INFO, CLUSTER …): the --node's.
    s = cr_pipeline_add(p, CR_ACCESS_AUTO, 0, a.size(), v.ptrs.data(), v.lens.data());
    if (s == CR_EINVAL && std::strstr(cr_last_error(), "names no key") == nullptr) {
      refused[i] = cr_last_error();  // SUBSCRIBE, SELECT …: refused for what they do
    } else if (s == CR_EINVAL) {
      s = node_port == 0 ? CR_EINVAL
                         : cr_pipeline_add_node(p, CR_ACCESS_AUTO, node_host.c_str(), node_port,
                                                a.size(), v.ptrs.data(), v.lens.data());
      if (node_port == 0) refused[i] = a[0] + " has no key: give --node HOST:PORT to send it";
    }
    if (s != CR_OK && refused[i].empty()) refused[i] = cr_last_error();
    if (s == CR_OK) queued.push_back(i);
  }
  std::vector<cr_reply *> replies(queued.size(), nullptr);
  size_t needed = 0;
  const cr_status ran = cr_pipeline_execute(replies.data(), nullptr, replies.size(), &needed, p);
  cr_pipeline_free(p);
  // Refused before anything was sent (no result in place); a command refused
  // in place (CR_EINVAL too: SUBSCRIBE …) has its error reply like any other.
  if (ran == CR_EBUFS || (ran == CR_EINVAL && (replies.empty() || replies[0] == nullptr))) {
    return Die("pipeline", ran);
  }
  std::string out;
  size_t q = 0;
  int exit_code = ran == CR_OK ? kExitOk : kExitCommandFailed;
  for (size_t i = 0; i < cmds.size(); ++i) {
    if (!refused[i].empty()) {
      out += "(error) " + refused[i] + "\n";
      exit_code = kExitCommandFailed;
      continue;
    }
    FormatReply(replies[q], 0, &out);
    cr_reply_free(replies[q++]);
  }
  std::fwrite(out.data(), 1, out.size(), stdout);
  return exit_code;
}

}  // namespace cli
