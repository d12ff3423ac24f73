// The course's JupyterLab extension: .cu and .cuh files open in the editor as C++, highlighted.
//
// JupyterLab's editor picks a file's language by its extension from CodeMirror's language
// registry, which knows no .cu; no setting adds one, so this plugin registers "CUDA" there, with
// C++'s highlighting. It is written by hand, with no build step: JupyterLab loads a prebuilt
// extension as a webpack module-federation container, an object in window._JUPYTERLAB with
// init(shareScope) and get(module), which this file provides. The registry's token is taken from
// the shared @jupyterlab/codemirror module that JupyterLab itself loaded, so that it is the very
// object JupyterLab's plugins are registered under.
(function () {
  "use strict";
  var shareScope = null;

  // The shared module's exports, as webpack's share scope offers it: {version: {get, loaded}}.
  function shared(name) {
    var versions = Object.values(shareScope[name] || {});
    var offer = versions.find(function (v) { return v.loaded; }) || versions[0];
    if (!offer) {
      return Promise.reject(new Error("cuda-course-lab: JupyterLab shares no " + name));
    }
    return Promise.resolve(offer.get()).then(function (factory) { return factory(); });
  }

  function plugins(codemirror) {
    return [{
      id: "cuda-course-lab:cuda-as-cpp",
      description: "Opens .cu and .cuh files as C++ (CUDA's kernels), with C++'s highlighting.",
      autoStart: true,
      requires: [codemirror.IEditorLanguageRegistry],
      activate: function (app, languages) {
        languages.addLanguage({
          name: "CUDA",
          displayName: "CUDA C++",
          mime: "text/x-cuda-src",
          extensions: ["cu", "cuh"],
          load: function () {
            return languages.getLanguage("C++").then(function (cpp) { return cpp.support; });
          }
        });
      }
    }];
  }

  window._JUPYTERLAB = window._JUPYTERLAB || {};
  window._JUPYTERLAB["cuda-course-lab"] = {
    init: function (scope) { shareScope = scope; },
    get: function (module) {
      if (module !== "./extension") {
        return Promise.reject(new Error("cuda-course-lab has no module " + module));
      }
      return shared("@jupyterlab/codemirror").then(function (codemirror) {
        var exports = { __esModule: true, default: plugins(codemirror) };
        return function () { return exports; };
      });
    }
  };
})();
