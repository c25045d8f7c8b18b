package desired

import (
	"errors"

	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
)

// nameReason turns a model.ValidateName reason into the loader's what and
// next-action sentences (class name:invalid); neither repeats the name.
func nameReason(err error) (what, next string) {
	switch {
	case errors.Is(err, model.ErrNameEmpty):
		return err.Error(), "choose a non-empty secret prefix and document path"
	case errors.Is(err, model.ErrNameTooLong):
		return err.Error(), "shorten the secret prefix or the document's path"
	}
	return err.Error(), "rename the document (or change the secret prefix) using only those characters"
}
