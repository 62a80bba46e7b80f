// headers.cpp - a .cu file together with the headers of the user's own tree
// (see rewrite_tree in rewrite.h).
//
// The compiler searches an #include "name" next to the including file, then
// in the include folders, and an #include <name> in the include folders only;
// the first file that exists wins. The rewriter follows the same order over
// the folders it was given (the project's, never the system's), rewrites
// each header it finds into HEADERS/<absolute path>, and writes the #include
// line so that it names that copy. Each copy starts with #line naming the
// original, so diagnostics and __FILE__ point at the user's file.
#include <deque>
#include <filesystem>
#include <map>
#include <set>

#include "rewrite.h"

namespace cuemu_rewrite {
namespace {

std::string normal(const std::string& path) {
    return std::filesystem::path(path).lexically_normal().generic_string();
}

std::string directory_of(const std::string& path) {
    const std::size_t slash = path.find_last_of('/');
    return slash == std::string::npos ? std::string(".") : path.substr(0, slash);
}

class Tree {
public:
    Tree(const std::string& headers_dir, const std::vector<IncludeDir>& include_dirs, const FileReader& read)
        : headers_dir_(normal(headers_dir)), include_dirs_(include_dirs), read_(read) {}

    TreeResult run(const std::string& cu_path, const std::string& output, const Options& options) {
        TreeResult result;
        SharedNames tree_names, tree_barriers;
        std::vector<SharedNames> own_names, own_barriers;  // per file of result.files
        const std::string cu = normal(cu_path);
        cu_ = cu;
        cu_output_ = output;
        queue_.push_back(cu);
        seen_.insert(cu);
        while (!queue_.empty()) {
            const std::string file = queue_.front();
            queue_.pop_front();
            const std::optional<std::string>& text = contents(file);
            if (!text) continue;  // the caller checked the .cu; a header just vanished
            Options mine = options;
            mine.redirect_include = [&](const std::string& name, bool angled) {
                return redirect(file, name, angled);
            };
            Result r = rewrite(*text, file, mine);
            for (Diagnostic& d : r.errors) result.errors.push_back(FileDiagnostic{file, std::move(d)});
            result.uses_shared_memory = result.uses_shared_memory || r.uses_shared_memory;
            tree_names.merge(r.shared_names);
            own_names.push_back(std::move(r.shared_names));
            tree_barriers.merge(r.barrier_names);
            own_barriers.push_back(std::move(r.barrier_names));
            result.files.push_back(RewrittenFile{file, copy_of(file), std::move(r.output)});
        }
        // Whether a kernel can reach shared memory depends on the names of
        // every file (a header's extern __shared__, a function or macro that
        // uses it), and so does whether it may wait for other threads (a
        // header's function with a __syncthreads): a file whose twins and
        // split kernels were decided on fewer names than the tree's is
        // rewritten again with all of them.
        for (std::size_t k = 0; k < result.files.size() && result.errors.empty(); ++k) {
            if (own_names[k].names == tree_names.names && own_names[k].unsure == tree_names.unsure &&
                own_barriers[k].names == tree_barriers.names && own_barriers[k].unsure == tree_barriers.unsure)
                continue;
            const std::string& file = result.files[k].original;
            Options mine = options;
            mine.redirect_include = [&](const std::string& name, bool angled) {
                return redirect(file, name, angled);
            };
            mine.tree_shared_names = tree_names;
            mine.tree_barrier_names = tree_barriers;
            result.files[k].text = rewrite(*contents(file), file, mine).output;
        }
        return result;
    }

private:
    std::string headers_dir_;
    std::vector<IncludeDir> include_dirs_;
    const FileReader& read_;
    std::map<std::string, std::optional<std::string>> cache_;
    std::deque<std::string> queue_;
    std::set<std::string> seen_;
    std::string cu_, cu_output_;

    const std::optional<std::string>& contents(const std::string& path) {
        auto it = cache_.find(path);
        if (it == cache_.end()) it = cache_.emplace(path, read_(path)).first;
        return it->second;
    }

    std::string copy_of(const std::string& original) const {
        return original == cu_ ? cu_output_ : normal(headers_dir_ + "/" + original);
    }

    std::optional<std::string> redirect(const std::string& including, const std::string& name, bool angled) {
        std::vector<IncludeDir> candidates;
        if (!name.empty() && name[0] == '/') {
            candidates.push_back({name, false});
        } else {
            if (!angled) candidates.push_back({directory_of(including) + "/" + name, false});
            for (const IncludeDir& dir : include_dirs_) candidates.push_back({dir.path + "/" + name, dir.system});
        }
        for (const IncludeDir& candidate : candidates) {
            const std::string path = normal(candidate.path);
            if (!contents(path)) continue;
            if (candidate.system) return std::nullopt;  // the compiler finds a system header first
            if (seen_.size() > 1000) return std::nullopt;  // a generated maze: leave the rest alone
            if (seen_.insert(path).second) queue_.push_back(path);
            return copy_of(path);
        }
        return std::nullopt;
    }
};

}  // namespace

TreeResult rewrite_tree(const std::string& cu_path, const std::string& output, const std::string& headers_dir,
                        const std::vector<IncludeDir>& include_dirs, const Options& options,
                        const FileReader& read_file) {
    return Tree(headers_dir, include_dirs, read_file).run(cu_path, output, options);
}

}  // namespace cuemu_rewrite
