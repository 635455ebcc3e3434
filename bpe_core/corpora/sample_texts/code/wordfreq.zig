//! Count how often each word occurs in a text and print the most common ones.
//! Words are runs of ASCII letters, compared in lower case. Written for Zig 0.13.
const std = @import("std");

const Entry = struct {
    word: []const u8,
    count: u32,

    /// The most frequent words first, ties broken alphabetically.
    fn before(_: void, a: Entry, b: Entry) bool {
        if (a.count != b.count) return a.count > b.count;
        return std.mem.lessThan(u8, a.word, b.word);
    }
};

pub fn main() !void {
    var gpa = std.heap.GeneralPurposeAllocator(.{}){};
    defer _ = gpa.deinit();
    var arena = std.heap.ArenaAllocator.init(gpa.allocator());
    defer arena.deinit();
    const allocator = arena.allocator();

    const args = try std.process.argsAlloc(allocator);
    const max_size = 64 * 1024 * 1024;
    const text = if (args.len > 1)
        try std.fs.cwd().readFileAlloc(allocator, args[1], max_size)
    else
        try std.io.getStdIn().readToEndAlloc(allocator, max_size);

    var counts = std.StringHashMap(u32).init(allocator);
    var total: u32 = 0;
    var start: ?usize = null;
    for (text, 0..) |c, i| {
        if (std.ascii.isAlphabetic(c)) {
            if (start == null) start = i;
        } else if (start) |s| {
            try addWord(allocator, &counts, text[s..i]);
            total += 1;
            start = null;
        }
    }
    if (start) |s| {
        try addWord(allocator, &counts, text[s..]);
        total += 1;
    }

    var ranked = std.ArrayList(Entry).init(allocator);
    var it = counts.iterator();
    while (it.next()) |kv| try ranked.append(.{ .word = kv.key_ptr.*, .count = kv.value_ptr.* });
    std.mem.sort(Entry, ranked.items, {}, Entry.before);

    const stdout = std.io.getStdOut().writer();
    try stdout.print("{d} words, {d} distinct\n", .{ total, counts.count() });
    for (ranked.items[0..@min(10, ranked.items.len)]) |entry| {
        const share = 100.0 * @as(f64, @floatFromInt(entry.count)) / @as(f64, @floatFromInt(total));
        try stdout.print("{s:<15} {d:>6} {d:>6.2}%\n", .{ entry.word, entry.count, share });
    }
}

fn addWord(allocator: std.mem.Allocator, counts: *std.StringHashMap(u32), word: []const u8) !void {
    const lower = try std.ascii.allocLowerString(allocator, word);
    const slot = try counts.getOrPut(lower);
    slot.value_ptr.* = if (slot.found_existing) slot.value_ptr.* + 1 else 1;
}
